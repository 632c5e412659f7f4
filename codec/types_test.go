package codec_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"reflect"
	"unsafe"

	"github.com/patchbot/patchbot/codec"
)

// Struct is shaped like encoding/binary's own test and benchmark struct.
type Struct = codec.BenchStruct

// s holds the same values as encoding/binary's test struct.
var s = Struct{
	0x01,
	0x0203,
	0x04050607,
	0x08090a0b0c0d0e0f,
	0x10,
	0x1112,
	0x13141516,
	0x1718191a1b1c1d1e,

	math.Float32frombits(0x1f202122),
	math.Float64frombits(0x232425262728292a),
	complex(
		math.Float32frombits(0x2b2c2d2e),
		math.Float32frombits(0x2f303132),
	),
	complex(
		math.Float64frombits(0x333435363738393a),
		math.Float64frombits(0x3b3c3d3e3f404142),
	),

	[4]uint8{0x43, 0x44, 0x45, 0x46},

	true,
	[4]bool{true, false, true, false},
}

// big is s encoded in big-endian order.
var big = []byte{
	1,
	2, 3,
	4, 5, 6, 7,
	8, 9, 10, 11, 12, 13, 14, 15,
	16,
	17, 18,
	19, 20, 21, 22,
	23, 24, 25, 26, 27, 28, 29, 30,

	31, 32, 33, 34,
	35, 36, 37, 38, 39, 40, 41, 42,
	43, 44, 45, 46, 47, 48, 49, 50,
	51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66,

	67, 68, 69, 70,

	1,
	1, 0, 1, 0,
}

// BlankFields is encoding/binary's test struct for blank fields.
type BlankFields struct {
	A uint32
	_ int32
	B float64
	_ [4]int16
	C byte
	_ [7]byte
	_ struct {
		f [8]float32
	}
}

// Inner has padding in memory, a blank field and bools.
type Inner struct {
	X uint8
	_ [3]byte
	Y float32
	Z [2]bool
}

// Pair has padding between its fields.
type Pair struct {
	A uint8
	B uint32
}

// Nested mixes arrays of arrays, arrays of structs and complex numbers.
type Nested struct {
	A [2][3]int16
	B [2]Inner
	C complex64
	D complex128
	E [40]Pair // long enough to be a repeated sub-plan
	F [3][2]Inner
	G [5]struct{ P, Q uint16 }
}

// Named types take the reflection path.
type (
	MyBool    bool
	MyInt8    int8
	MyUint16  uint16
	MyInt32   int32
	MyUint64  uint64
	MyFloat32 float32
	MyFloat64 float64
	MyComplex complex64
	MyBytes   []byte
	MyUint32s []uint32
	MyArray   [3]MyUint16
)

// encoding/binary panics when decoding into these; codec returns an error.
type (
	Unexported struct {
		A int32
		b int16
	}
	UnexportedNested struct {
		A  int32
		In struct{ B, c int8 }
	}
	myUint16                 uint16
	UnexportedEmbeddedNumber struct {
		myUint16
		Y uint8
	}
	myArray                 [2]uint8
	UnexportedEmbeddedArray struct {
		myArray
	}
)

// UnexportedHarmless has unexported fields that decoding never sets.
// (reflect lets the exported fields of an embedded unexported struct be
// set.)
type (
	UnexportedHarmless struct {
		A  int32
		in struct{ _ int32 }
		z  [0]int64
	}
	unexportedEmbedded struct{ X uint16 }
	UnexportedEmbedded struct {
		unexportedEmbedded
		Y uint8
	}
)

// Types that are not fixed-size.
type (
	WithInt struct {
		A int32
		B int
	}
	WithSlice struct {
		A []int32
	}
	WithBlankInt struct {
		A int32
		_ int
	}
)

// Empty has size 0.
type Empty struct{}

// otherOrder is a ByteOrder codec does not recognise, so it takes the
// generic path that calls the order's methods.
type otherOrder struct{ binary.ByteOrder }

var orders = []binary.ByteOrder{
	binary.BigEndian,
	binary.LittleEndian,
	binary.NativeEndian,
	otherOrder{binary.BigEndian},
}

// basicTypes are the types of the fast path.
var basicTypes = []reflect.Type{
	reflect.TypeFor[bool](),
	reflect.TypeFor[int8](),
	reflect.TypeFor[int16](),
	reflect.TypeFor[int32](),
	reflect.TypeFor[int64](),
	reflect.TypeFor[uint8](),
	reflect.TypeFor[uint16](),
	reflect.TypeFor[uint32](),
	reflect.TypeFor[uint64](),
	reflect.TypeFor[float32](),
	reflect.TypeFor[float64](),
}

// testTypes are the element types of the differential tests.
var testTypes = append(append([]reflect.Type(nil), basicTypes...),
	reflect.TypeFor[complex64](),
	reflect.TypeFor[complex128](),
	reflect.TypeFor[Struct](),
	reflect.TypeFor[BlankFields](),
	reflect.TypeFor[Inner](),
	reflect.TypeFor[Pair](),
	reflect.TypeFor[Nested](),
	reflect.TypeFor[MyBool](),
	reflect.TypeFor[MyInt8](),
	reflect.TypeFor[MyUint16](),
	reflect.TypeFor[MyInt32](),
	reflect.TypeFor[MyUint64](),
	reflect.TypeFor[MyFloat32](),
	reflect.TypeFor[MyFloat64](),
	reflect.TypeFor[MyComplex](),
	reflect.TypeFor[MyBytes](),
	reflect.TypeFor[MyUint32s](),
	reflect.TypeFor[MyArray](),
	reflect.TypeFor[[4]uint16](),
	reflect.TypeFor[[2][3]bool](),
	reflect.TypeFor[[100]uint32](),
	reflect.TypeFor[[0]int32](),
	reflect.TypeFor[[0]int](),
	reflect.TypeFor[Empty](),
	reflect.TypeFor[Unexported](),
	reflect.TypeFor[UnexportedNested](),
	reflect.TypeFor[UnexportedEmbedded](),
	reflect.TypeFor[UnexportedEmbeddedNumber](),
	reflect.TypeFor[UnexportedEmbeddedArray](),
	reflect.TypeFor[UnexportedHarmless](),
	reflect.TypeFor[WithInt](),
	reflect.TypeFor[WithSlice](),
	reflect.TypeFor[WithBlankInt](),
	reflect.TypeFor[int](),
	reflect.TypeFor[uint](),
	reflect.TypeFor[uintptr](),
	reflect.TypeFor[string](),
	reflect.TypeFor[map[string]int](),
	reflect.TypeFor[*int32](),
	reflect.TypeFor[*Struct](),
	reflect.TypeFor[[]int32](),
)

// readOnly reports whether encoding/binary panics when decoding into a
// non-empty value of type t, because it would set an unexported field.
func readOnly(t reflect.Type) bool {
	switch t {
	case reflect.TypeFor[Unexported](), reflect.TypeFor[UnexportedNested](),
		reflect.TypeFor[UnexportedEmbeddedNumber](), reflect.TypeFor[UnexportedEmbeddedArray]():
		return true
	}
	return false
}

// fill sets every number in v, which must be addressable, to a random
// value, including unexported and blank fields (so that tests see that
// blank fields are written as zeros).
func fill(v reflect.Value, r *rand.Rand) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(r.Uint64()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.SetUint(r.Uint64())
	case reflect.Float32:
		v.SetFloat(float64(math.Float32frombits(r.Uint32())))
		quiet(v)
	case reflect.Float64:
		v.SetFloat(math.Float64frombits(r.Uint64()))
	case reflect.Complex64:
		v.SetComplex(complex(float64(math.Float32frombits(r.Uint32())), float64(math.Float32frombits(r.Uint32()))))
		quiet(v)
	case reflect.Complex128:
		v.SetComplex(complex(math.Float64frombits(r.Uint64()), math.Float64frombits(r.Uint64())))
	case reflect.Array, reflect.Slice:
		for i := range v.Len() {
			fill(v.Index(i), r)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Field(i)
			if !f.CanSet() {
				f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
			}
			fill(f, r)
		}
	case reflect.String:
		v.SetString("x")
	}
}

// A form is one way of passing values of a type as data.
type form struct {
	name string
	// make returns data for element type t, filled with random numbers
	// if r is not nil, or zeroed (a fresh decoding target) if it is.
	make func(t reflect.Type, r *rand.Rand) any
}

func maybeFill(v reflect.Value, r *rand.Rand) {
	if r != nil {
		fill(v, r)
	}
}

var forms = []form{
	{name: "value", make: func(t reflect.Type, r *rand.Rand) any {
		v := reflect.New(t).Elem()
		maybeFill(v, r)
		return v.Interface()
	}},
	{name: "pointer", make: func(t reflect.Type, r *rand.Rand) any {
		v := reflect.New(t)
		maybeFill(v.Elem(), r)
		return v.Interface()
	}},
	{name: "slice", make: func(t reflect.Type, r *rand.Rand) any {
		v := reflect.MakeSlice(reflect.SliceOf(t), 3, 3)
		maybeFill(v, r)
		return v.Interface()
	}},
	{name: "emptySlice", make: func(t reflect.Type, r *rand.Rand) any {
		return reflect.MakeSlice(reflect.SliceOf(t), 0, 0).Interface()
	}},
	{name: "nilSlice", make: func(t reflect.Type, r *rand.Rand) any {
		return reflect.Zero(reflect.SliceOf(t)).Interface()
	}},
	{name: "pointerToSlice", make: func(t reflect.Type, r *rand.Rand) any {
		v := reflect.MakeSlice(reflect.SliceOf(t), 2, 2)
		maybeFill(v, r)
		p := reflect.New(v.Type())
		p.Elem().Set(v)
		return p.Interface()
	}},
	{name: "nilPointer", make: func(t reflect.Type, r *rand.Rand) any {
		return reflect.Zero(reflect.PointerTo(t)).Interface()
	}},
	{name: "nilPointerToSlice", make: func(t reflect.Type, r *rand.Rand) any {
		return reflect.Zero(reflect.PointerTo(reflect.SliceOf(t))).Interface()
	}},
}

// memory returns a copy of the memory that data's values occupy: the
// pointee of a pointer, the elements of a slice. Comparing memory rather
// than values catches bools that hold something other than 0 or 1, and
// treats NaNs as equal to themselves.
func memory(data any) []byte {
	v := reflect.ValueOf(data)
	if !v.IsValid() {
		return nil
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	var p unsafe.Pointer
	var n uintptr
	switch v.Kind() {
	case reflect.Slice:
		p, n = v.UnsafePointer(), uintptr(v.Len())*v.Type().Elem().Size()
	default:
		if !v.CanAddr() {
			return nil // a value: decoding never changes it
		}
		p, n = unsafe.Pointer(v.UnsafeAddr()), v.Type().Size()
	}
	if n == 0 {
		return []byte{}
	}
	return append([]byte(nil), unsafe.Slice((*byte)(p), n)...)
}

// isNilPointer reports whether data is a nil pointer. encoding/binary
// panics on those or reports another error; codec reports a nil pointer.
func isNilPointer(data any) bool {
	v := reflect.ValueOf(data)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// quietNaNs sets the quiet bit of every float32 NaN in data, a pointer or
// a slice, including the halves of complex64 numbers. encoding/binary's
// reflection path converts float32 values through float64, which quiets
// signaling NaNs; codec copies their bits. Tests quiet both results before
// comparing them.
func quietNaNs(data any) {
	v := reflect.ValueOf(data)
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			quiet(v.Elem())
		}
	case reflect.Slice:
		quiet(v)
	}
}

// quiet sets the quiet bit of every float32 NaN in v, which must be
// addressable.
func quiet(v reflect.Value) {
	switch v.Kind() {
	case reflect.Float32:
		quiet32((*uint32)(unsafe.Pointer(v.UnsafeAddr())))
	case reflect.Complex64:
		p := (*[2]uint32)(unsafe.Pointer(v.UnsafeAddr()))
		quiet32(&p[0])
		quiet32(&p[1])
	case reflect.Array, reflect.Slice:
		for i := range v.Len() {
			quiet(v.Index(i))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			quiet(v.Field(i))
		}
	}
}

func quiet32(p *uint32) {
	if *p&0x7f800000 == 0x7f800000 && *p&0x007fffff != 0 {
		*p |= 0x00400000
	}
}

// isValue reports whether data is neither a pointer nor a slice, so that
// it cannot be decoded into.
func isValue(data any) bool {
	k := reflect.TypeOf(data).Kind()
	return k != reflect.Pointer && k != reflect.Slice
}
