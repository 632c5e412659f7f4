package codec

import (
	"reflect"
	"testing"
)

// encodedSize returns the number of encoded bytes ops stand for.
func encodedSize(ops []op) int {
	n := 0
	for _, o := range ops {
		if o.kind == opRepeat {
			n += o.n * encodedSize(o.sub)
		} else {
			n += o.n * o.kind.width()
		}
	}
	return n
}

type planInner struct {
	X uint8
	_ [3]byte
	Y float32
	Z [2]bool
}

type planPair struct {
	A uint8
	B uint32
}

// TestPlans checks the plans of a few types: every list of ops stands for
// the type's encoded size, and runs that touch in memory are merged.
func TestPlans(t *testing.T) {
	tests := []struct {
		v         any
		size      int
		encNative int // number of ops when encoding in the machine's order
	}{
		{int32(0), 4, 1},
		{[100]uint32{}, 400, 1},
		{[2][3]int16{}, 12, 1},
		{complex128(0), 16, 1},
		{struct{ A, B, C uint32 }{}, 12, 1},
		{planPair{}, 5, 2}, // padding between A and B
		{planInner{}, 10, 3},
		{[40]planPair{}, 200, 1}, // one opRepeat of two copies
		{[3]planInner{}, 30, 9},
		{struct {
			A uint64
			_ [16]byte
			B uint64
		}{}, 32, 3},
		{struct{}{}, 0, 0},
		// 4 on 64-bit machines (padding after Int8, Uint8 and Float32),
		// 3 on 386, where 8-byte numbers are aligned to 4 bytes.
		{planStruct{}, 75, touchingRuns(reflect.TypeFor[planStruct]())},
	}
	for _, tt := range tests {
		p := planOf(reflect.TypeOf(tt.v))
		if p.size != tt.size {
			t.Errorf("%T: size %d, want %d", tt.v, p.size, tt.size)
		}
		for name, ops := range map[string][]op{"wide": p.wide, "encNative": p.encNative, "decNative": p.decNative} {
			if n := encodedSize(ops); n != tt.size {
				t.Errorf("%T: %s ops stand for %d bytes, want %d", tt.v, name, n, tt.size)
			}
		}
		if len(p.encNative) != tt.encNative {
			t.Errorf("%T: %d encNative ops %+v, want %d", tt.v, len(p.encNative), p.encNative, tt.encNative)
		}
	}
}

// touchingRuns returns the number of runs of fields of the struct type t
// that touch in memory: the number of copies that encode t in the
// machine's order, if t has no blank fields.
func touchingRuns(t reflect.Type) int {
	runs, end := 0, ^uintptr(0)
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Offset != end {
			runs++
		}
		end = f.Offset + f.Type.Size()
	}
	return runs
}

// planStruct is the struct of the benchmarks and of the differential tests
// (codec_test's Struct), shaped like encoding/binary's own.
type planStruct struct {
	Int8       int8
	Int16      int16
	Int32      int32
	Int64      int64
	Uint8      uint8
	Uint16     uint16
	Uint32     uint32
	Uint64     uint64
	Float32    float32
	Float64    float64
	Complex64  complex64
	Complex128 complex128
	Array      [4]uint8
	Bool       bool
	BoolArray  [4]bool
}
