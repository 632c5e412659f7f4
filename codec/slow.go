package codec

import (
	"errors"
	"io"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// The reflection path handles everything fastSize does not: structs,
// arrays, named types, complex numbers, pointers to slices, empty slices,
// and the types codec refuses. It uses reflection to find data's plan,
// once per type, and then runs the plan over memory.

// slowHook, if set, is called each time the reflection path is taken.
// Tests set it to count those calls. A hook costs nothing when unset,
// where a shared counter would be written by every call (and its cache
// line passed between cores by concurrent callers).
var slowHook func()

// A shape says where the values of data are, given its dynamic type.
type shape uint8

const (
	shapeValue          shape = iota // data is the value (encoding only)
	shapePointer                     // data points to the value
	shapeSlice                       // data is a slice of values
	shapePointerToSlice              // data points to a slice of values
)

// A dataType is what the reflection path needs to know about one dynamic
// type of data: its shape and the plan of its values.
type dataType struct {
	typ   unsafe.Pointer // the type word of interface values of this type
	shape shape
	plan  *plan // for a slice, the plan of one element
}

// dataTypes holds the dataType of each dynamic type of data seen so far.
var dataTypes sync.Map // map[reflect.Type]*dataType

// recentTypes is a cache in front of dataTypes, indexed by a hash of the
// type word. Finding a type there costs one load and one comparison, about
// half of what a sync.Map lookup costs, which shows when encoding a small
// struct takes tens of nanoseconds. Two types that share a slot and are
// used in turn keep replacing each other and are found in dataTypes
// instead: slower, never wrong.
var recentTypes [256]atomic.Pointer[dataType]

// dataTypeOf returns the dataType of data, which must not be nil.
func dataTypeOf(data any) *dataType {
	t := reflect.TypeOf(data)
	typ := typeWord(t)
	slot := &recentTypes[uint64(uintptr(typ))*0x9e3779b97f4a7c15>>56]
	if dt := slot.Load(); dt != nil && dt.typ == typ {
		return dt
	}
	var dt *dataType
	if v, ok := dataTypes.Load(t); ok {
		dt = v.(*dataType)
	} else {
		v, _ := dataTypes.LoadOrStore(t, newDataType(t, typ))
		dt = v.(*dataType)
	}
	slot.Store(dt)
	return dt
}

// typeWord returns the pointer to the runtime type descriptor behind t,
// which is also the type word of interface values of that type. It is
// taken from the reflect.Type rather than from data itself: escape
// analysis cannot tell the type word of data from its data word, and would
// let every data escape once a type word is stored.
func typeWord(t reflect.Type) unsafe.Pointer {
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&t))[1]
}

func newDataType(t reflect.Type, typ unsafe.Pointer) *dataType {
	dt := &dataType{typ: typ, shape: shapeValue}
	elem := t
	switch t.Kind() {
	case reflect.Pointer:
		dt.shape = shapePointer
		elem = t.Elem()
		if elem.Kind() == reflect.Slice {
			dt.shape = shapePointerToSlice
			elem = elem.Elem()
		}
	case reflect.Slice:
		dt.shape = shapeSlice
		elem = t.Elem()
	}
	dt.plan = planOf(elem)
	return dt
}

// A target is where the reflection path finds data's values: count values
// of the type of plan, laid out one after the other from ptr.
type target struct {
	plan  *plan
	shape shape
	ptr   unsafe.Pointer
	count int
}

// size returns the encoded size of the target.
func (t target) size() int { return t.count * t.plan.size }

// rawBytes returns the memory of data, whose target is t, if data is a
// slice and in mode m that memory is its encoding, so that Write can pass it
// to the writer without a copy. It reads the slice from data again rather
// than using t.ptr: only a slice's elements may reach the writer, never
// what a pointer points to, or every pointer passed to Write would escape
// to the heap.
func (t target) rawBytes(data any, m mode) ([]byte, bool) {
	if t.shape != shapeSlice || m != modeNative || t.count == 0 {
		return nil, false
	}
	if o, ok := repeatRun(t.plan.encNative, t.count, t.plan.memSize); !ok || o.kind != opCopy {
		return nil, false
	}
	s := *(*[]byte)(dataWord(&data))
	return unsafe.Slice(unsafe.SliceData(s), t.size()), true
}

// A problem is why the reflection path refuses data.
type problem uint8

const (
	noProblem  problem = iota
	badType            // not fixed-size data or, to decode into, not a pointer or slice
	nilPointer         // a nil pointer
	readOnly           // decoding would set an unexported struct field
)

// resolve finds the values of data, to decode into them if decode is set,
// or else to encode or size them.
func resolve(data any, decode bool) (target, problem) {
	if slowHook != nil {
		slowHook()
	}
	if data == nil {
		return target{}, badType
	}
	dt := dataTypeOf(data)
	if dt.plan.size < 0 || decode && dt.shape == shapeValue {
		return target{}, badType
	}
	t := target{plan: dt.plan, shape: dt.shape, ptr: dataWord(&data), count: 1}
	if dt.shape == shapePointer || dt.shape == shapePointerToSlice {
		if t.ptr == nil {
			return target{}, nilPointer
		}
	}
	if dt.shape == shapeSlice || dt.shape == shapePointerToSlice {
		s := *(*[]byte)(t.ptr) // any slice header has this layout
		t.ptr = unsafe.Pointer(unsafe.SliceData(s))
		t.count = len(s)
	}
	if decode && dt.plan.decodeErr != "" && t.count > 0 {
		return target{}, readOnly
	}
	return t, noProblem
}

// resolveError returns the error for problem pr of data in function fn.
func resolveError(fn string, data any, pr problem, decode bool) error {
	switch pr {
	case nilPointer:
		return nilPointerError(fn, data)
	case readOnly:
		dt := dataTypeOf(data)
		return errors.New(fn + ": cannot decode into unexported field " + dt.plan.decodeErr + " of " + typeString(data))
	}
	if decode {
		return invalidTypeError(fn, data)
	}
	return notFixedError(fn, data)
}

func sizeSlow(v any) int {
	t, pr := resolve(v, false)
	if pr != noProblem {
		return -1
	}
	return t.size()
}

func readSlow(r io.Reader, order ByteOrder, data any) error {
	t, pr := resolve(data, true)
	if pr != noProblem {
		return resolveError("codec.Read", data, pr, true)
	}
	p := getBuf(t.size())
	defer putBuf(p)
	if err := readFull(r, *p); err != nil {
		return err
	}
	t.plan.decodeElems(*p, t.ptr, t.count, modeOf(order), order)
	return nil
}

func writeSlow(w io.Writer, order ByteOrder, data any) error {
	t, pr := resolve(data, false)
	if pr != noProblem {
		return resolveError("codec.Write", data, pr, false)
	}
	m := modeOf(order)
	if b, ok := t.rawBytes(data, m); ok {
		_, err := w.Write(b)
		return err
	}
	n := t.size()
	if b, ok := available(w, n); ok {
		t.plan.encodeElems(b, t.ptr, t.count, m, order)
		_, err := w.Write(b)
		return err
	}
	p := getBuf(n)
	defer putBuf(p)
	t.plan.encodeElems(*p, t.ptr, t.count, m, order)
	_, err := w.Write(*p)
	return err
}

func appendSlow(buf []byte, order ByteOrder, data any) ([]byte, error) {
	t, pr := resolve(data, false)
	if pr != noProblem {
		return nil, resolveError("codec.Append", data, pr, false)
	}
	buf, pos := grow(buf, t.size())
	t.plan.encodeElems(pos, t.ptr, t.count, modeOf(order), order)
	return buf, nil
}

func encodeSlow(buf []byte, order ByteOrder, data any) (int, error) {
	t, pr := resolve(data, false)
	if pr != noProblem {
		return 0, resolveError("codec.Encode", data, pr, false)
	}
	n := t.size()
	if len(buf) < n {
		return 0, errBufferTooSmall
	}
	t.plan.encodeElems(buf[:n], t.ptr, t.count, modeOf(order), order)
	return n, nil
}

func decodeSlow(buf []byte, order ByteOrder, data any) (int, error) {
	t, pr := resolve(data, true)
	if pr != noProblem {
		return 0, resolveError("codec.Decode", data, pr, true)
	}
	n := t.size()
	if len(buf) < n {
		return 0, errBufferTooSmall
	}
	t.plan.decodeElems(buf[:n], t.ptr, t.count, modeOf(order), order)
	return n, nil
}
