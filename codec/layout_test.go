package codec

import (
	"reflect"
	"testing"
	"unsafe"
)

// TestInterfaceLayout checks what codec assumes of Go's interface values
// (see eface, isNil and typeWord), so that a runtime that lays them out
// differently fails here by name rather than as wrong bytes elsewhere: the
// data word of a boxed value points to the value and that of a pointer is
// the pointer; the type word is the data word of the value's reflect.Type,
// one per type.
func TestInterfaceLayout(t *testing.T) {
	x := uint32(0xdeadbeef)
	var v any = x
	if got := *(*uint32)(dataWord(&v)); got != x {
		t.Errorf("data word of a boxed uint32 points to %#x, want %#x", got, x)
	}
	v = &x
	if dataWord(&v) != unsafe.Pointer(&x) {
		t.Error("data word of a *uint32 is not the pointer")
	}
	v = []uint16{7, 8}
	if got := *(*[]uint16)(dataWord(&v)); len(got) != 2 || got[1] != 8 {
		t.Errorf("data word of a []uint16 points to %v, want its header", got)
	}

	for _, c := range []struct {
		data any
		nil  bool
	}{
		{(*uint32)(nil), true},
		{(*[4]int16)(nil), true},
		{false, false},
		{uint8(0), false},
		{int64(0), false},
		{float64(0), false},
		{[]int8(nil), false},
		{&x, false},
	} {
		if got := isNil(c.data); got != c.nil {
			t.Errorf("isNil(%#v) = %v, want %v", c.data, got, c.nil)
		}
	}

	seen := make(map[unsafe.Pointer]reflect.Type)
	for _, data := range []any{x, &x, int16(0), []uint32{}, [3]bool{}, struct{ A, B uint8 }{}, complex64(0)} {
		typ := reflect.TypeOf(data)
		w := typeWord(typ)
		if w != (*eface)(unsafe.Pointer(&data)).typ {
			t.Errorf("typeWord(%v) is not the type word of an interface holding one", typ)
		}
		if other, ok := seen[w]; ok {
			t.Errorf("typeWord(%v) == typeWord(%v)", typ, other)
		}
		seen[w] = typ
	}
}
