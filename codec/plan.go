package codec

import (
	"math/bits"
	"reflect"
	"sync"
	"unsafe"
)

// A plan says how to encode and decode one fixed-size type: a flat list of
// operations over the value's memory, worked out once per type with
// reflection and then run over unsafe pointers. encoding/binary instead
// walks reflect.Values field by field on every call.
//
// Fixed-size types hold no pointers, so a value is plain memory: every
// field is a run of 1-, 2-, 4- or 8-byte numbers at a known offset (a
// complex number is two floats, a float has the bits of an unsigned
// integer of its size). Encoding is therefore copying those runs into the
// output in order, byte-swapping them when the byte order is not the
// machine's own.
type plan struct {
	size    int     // encoded size in bytes, or -1 if the type is not fixed-size
	memSize uintptr // size of the type in memory (reflect.Type.Size)

	// wide lists the runs with their element width, for the swapped
	// order and for ByteOrder implementations codec does not know.
	wide []op
	// encNative and decNative are wide rewritten for the machine's own
	// order: runs that touch in memory are merged into single copies.
	// Decoding keeps bools apart, since it must map any non-zero byte to
	// true.
	encNative []op
	decNative []op

	// decodeErr, if not empty, says why values of the type cannot be
	// decoded into: the name of an unexported field that would be set.
	decodeErr string
}

type opKind uint8

const (
	opBytes  opKind = iota // n one-byte numbers, copied as they are
	opBool                 // n bools: copied on encode, normalised on decode
	op16                   // n 2-byte numbers
	op32                   // n 4-byte numbers
	op64                   // n 8-byte numbers
	opCopy                 // n bytes that are the same in memory and encoded
	opBlank                // n bytes of blank (_) fields: zeros out, skipped in
	opRepeat               // n elements of sub, stride bytes apart
)

// An op is one step of a plan. It reads or writes memory at offset off from
// the value's address and the next bytes of the encoding.
type op struct {
	kind   opKind
	off    uintptr
	n      int
	stride uintptr // opRepeat only
	sub    []op    // opRepeat only
}

// width returns the size in bytes of one element of an op of kind k.
func (k opKind) width() int {
	switch k {
	case op16:
		return 2
	case op32:
		return 4
	case op64:
		return 8
	}
	return 1
}

// plans caches the plan of each type, keyed by reflect.Type.
var plans sync.Map // map[reflect.Type]*plan

// planOf returns the plan of t, building it on first use.
func planOf(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	p, _ := plans.LoadOrStore(t, buildPlan(t))
	return p.(*plan)
}

// unrollLimit bounds how many ops an array of structs may be unrolled into
// before it becomes a single opRepeat.
const unrollLimit = 32

func buildPlan(t reflect.Type) *plan {
	p := &plan{size: sizeof(t), memSize: t.Size()}
	if p.size < 0 {
		return p
	}
	var b builder
	b.add(t, 0, "")
	p.wide = b.ops
	p.decodeErr = b.decodeErr
	p.encNative = lowerNative(p.wide, true)
	p.decNative = lowerNative(p.wide, false)
	return p
}

// sizeof returns the encoded size of t, or -1 if t is not fixed-size. It
// follows encoding/binary's sizeof exactly, so that Size agrees with it.
func sizeof(t reflect.Type) int {
	switch t.Kind() {
	case reflect.Array:
		if s := sizeof(t.Elem()); s >= 0 {
			return s * t.Len()
		}
	case reflect.Struct:
		sum := 0
		for i := range t.NumField() {
			s := sizeof(t.Field(i).Type)
			if s < 0 {
				return -1
			}
			sum += s
		}
		return sum
	case reflect.Bool,
		reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return int(t.Size())
	}
	return -1
}

// A builder collects the ops of a fixed-size type.
type builder struct {
	ops       []op
	decodeErr string
}

// add appends the ops for a value of type t at offset off. readOnly names
// the unexported field on the path to this value, if any: encoding/binary
// cannot set such fields and panics; codec refuses to decode instead.
func (b *builder) add(t reflect.Type, off uintptr, readOnly string) {
	switch t.Kind() {
	case reflect.Bool:
		b.value(op{kind: opBool, off: off, n: 1}, readOnly)
	case reflect.Int8, reflect.Uint8:
		b.value(op{kind: opBytes, off: off, n: 1}, readOnly)
	case reflect.Int16, reflect.Uint16:
		b.value(op{kind: op16, off: off, n: 1}, readOnly)
	case reflect.Int32, reflect.Uint32, reflect.Float32:
		b.value(op{kind: op32, off: off, n: 1}, readOnly)
	case reflect.Int64, reflect.Uint64, reflect.Float64:
		b.value(op{kind: op64, off: off, n: 1}, readOnly)
	case reflect.Complex64:
		b.value(op{kind: op32, off: off, n: 2}, readOnly)
	case reflect.Complex128:
		b.value(op{kind: op64, off: off, n: 2}, readOnly)
	case reflect.Array:
		b.array(t, off, readOnly)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			switch {
			case f.Name == "_":
				b.push(op{kind: opBlank, n: sizeof(f.Type)})
			case !f.IsExported() && readOnly == "" && !(f.Anonymous && f.Type.Kind() == reflect.Struct):
				// reflect lets the exported fields of an embedded
				// unexported struct be set, but nothing else under an
				// unexported field.
				b.add(f.Type, off+f.Offset, t.String()+"."+f.Name)
			default:
				b.add(f.Type, off+f.Offset, readOnly)
			}
		}
	}
}

// value appends the op of a basic value.
func (b *builder) value(o op, readOnly string) {
	if readOnly != "" && b.decodeErr == "" {
		b.decodeErr = readOnly
	}
	b.push(o)
}

// array appends the ops of an array of type t at offset off. An array whose
// elements are one run filling their memory (numbers, or structs of numbers
// of one width without padding) is one longer run; a short array of other
// elements is unrolled; a long one becomes an opRepeat.
func (b *builder) array(t reflect.Type, off uintptr, readOnly string) {
	n := t.Len()
	if n == 0 {
		return // nothing is ever set, not even unexported fields
	}
	var eb builder
	eb.add(t.Elem(), 0, readOnly)
	if eb.decodeErr != "" && b.decodeErr == "" {
		b.decodeErr = eb.decodeErr
	}
	if len(eb.ops) == 0 {
		return
	}
	stride := t.Elem().Size()
	if o, ok := repeatRun(eb.ops, n, stride); ok {
		o.off = off
		b.push(o)
		return
	}
	if n*len(eb.ops) <= unrollLimit {
		for i := range n {
			for _, e := range eb.ops {
				e.off += off + uintptr(i)*stride
				b.push(e)
			}
		}
		return
	}
	b.push(op{kind: opRepeat, off: off, n: n, stride: stride, sub: eb.ops})
}

// push appends o, merging it into the last op when o continues it: same
// kind and next in memory. Blank bytes have no memory, so they always merge.
func (b *builder) push(o op) {
	if o.n == 0 {
		return
	}
	if len(b.ops) > 0 {
		last := &b.ops[len(b.ops)-1]
		if last.kind == o.kind && o.kind != opRepeat &&
			(o.kind == opBlank || o.off == last.off+uintptr(last.n*o.kind.width())) {
			last.n += o.n
			return
		}
	}
	b.ops = append(b.ops, o)
}

// lowerNative rewrites wide ops for the machine's own byte order, where
// numbers of every width are copied as memory: they become opCopy runs,
// merged when they touch. Bools are copies too when encoding.
func lowerNative(wide []op, encode bool) []op {
	var b builder
	for _, o := range wide {
		switch o.kind {
		case opBytes, op16, op32, op64:
			b.push(op{kind: opCopy, off: o.off, n: o.n * o.kind.width()})
		case opBool:
			if encode {
				b.push(op{kind: opCopy, off: o.off, n: o.n})
			} else {
				b.push(o)
			}
		case opBlank:
			b.push(o)
		case opRepeat:
			sub := lowerNative(o.sub, encode)
			if r, ok := repeatRun(sub, o.n, o.stride); ok {
				r.off = o.off
				b.push(r)
			} else {
				b.push(op{kind: opRepeat, off: o.off, n: o.n, stride: o.stride, sub: sub})
			}
		}
	}
	return b.ops
}

// ops returns the plan's ops for mode m.
func (p *plan) ops(m mode, encode bool) []op {
	switch {
	case m != modeNative:
		return p.wide
	case encode:
		return p.encNative
	}
	return p.decNative
}

// repeatRun returns the single op, at offset 0, that stands for n
// elements stride bytes apart whose ops are ops, if ops is a single run
// that fills an element's stride: numbers of one width (or copied bytes)
// from offset 0 with no padding, or blank bytes, which have no memory.
// Arrays and slices of such elements, and the repeats of the native plans,
// are then one run: one loop, or one copy, instead of one run of the
// element's ops per element.
func repeatRun(ops []op, n int, stride uintptr) (op, bool) {
	if len(ops) != 1 {
		return op{}, false
	}
	o := ops[0]
	if o.kind == opBlank || o.kind != opRepeat && o.off == 0 && uintptr(o.n*o.kind.width()) == stride {
		return op{kind: o.kind, n: n * o.n}, true
	}
	return op{}, false
}

// encodeElems encodes count elements of the plan's type starting at ptr
// into b, which holds exactly count*p.size bytes.
func (p *plan) encodeElems(b []byte, ptr unsafe.Pointer, count int, m mode, order ByteOrder) {
	if p.size == 0 {
		return
	}
	ops := p.ops(m, true)
	if o, ok := repeatRun(ops, count, p.memSize); ok {
		encodeOps(b, ptr, []op{o}, m, order)
		return
	}
	for i := range count {
		encodeOps(b[i*p.size:], unsafe.Add(ptr, uintptr(i)*p.memSize), ops, m, order)
	}
}

// decodeElems decodes b, which holds exactly count*p.size bytes, into count
// elements of the plan's type starting at ptr.
func (p *plan) decodeElems(b []byte, ptr unsafe.Pointer, count int, m mode, order ByteOrder) {
	if p.size == 0 {
		return
	}
	ops := p.ops(m, false)
	if o, ok := repeatRun(ops, count, p.memSize); ok {
		decodeOps(b, ptr, []op{o}, m, order)
		return
	}
	for i := range count {
		decodeOps(b[i*p.size:], unsafe.Add(ptr, uintptr(i)*p.memSize), ops, m, order)
	}
}

// encodeOps runs ops over the value at ptr, writing its encoding to the
// front of b, and returns the number of bytes written.
func encodeOps(b []byte, ptr unsafe.Pointer, ops []op, m mode, order ByteOrder) int {
	pos := 0
	for i := range ops {
		o := &ops[i]
		q := unsafe.Add(ptr, o.off)
		// Single numbers, the common case in structs, are handled
		// inline; runs go to the loops of order.go.
		switch o.kind {
		case opBytes, opBool, opCopy:
			if o.n == 1 {
				b[pos] = *(*byte)(q)
			} else {
				copy(b[pos:pos+o.n], unsafe.Slice((*byte)(q), o.n))
			}
			pos += o.n
		case opBlank:
			clear(b[pos : pos+o.n])
			pos += o.n
		case op16:
			if o.n == 1 && m == modeSwapped {
				native.PutUint16(b[pos:pos+2], bits.ReverseBytes16(*(*uint16)(q)))
			} else {
				put16s(b[pos:], unsafe.Slice((*uint16)(q), o.n), m, order)
			}
			pos += 2 * o.n
		case op32:
			if o.n == 1 && m == modeSwapped {
				native.PutUint32(b[pos:pos+4], bits.ReverseBytes32(*(*uint32)(q)))
			} else {
				put32s(b[pos:], unsafe.Slice((*uint32)(q), o.n), m, order)
			}
			pos += 4 * o.n
		case op64:
			if o.n == 1 && m == modeSwapped {
				native.PutUint64(b[pos:pos+8], bits.ReverseBytes64(*(*uint64)(q)))
			} else {
				put64s(b[pos:], unsafe.Slice((*uint64)(q), o.n), m, order)
			}
			pos += 8 * o.n
		case opRepeat:
			for j := range o.n {
				pos += encodeOps(b[pos:], unsafe.Add(q, uintptr(j)*o.stride), o.sub, m, order)
			}
		}
	}
	return pos
}

// decodeOps runs ops over the value at ptr, reading its encoding from the
// front of b, and returns the number of bytes read.
func decodeOps(b []byte, ptr unsafe.Pointer, ops []op, m mode, order ByteOrder) int {
	pos := 0
	for i := range ops {
		o := &ops[i]
		q := unsafe.Add(ptr, o.off)
		switch o.kind {
		case opBytes, opCopy:
			if o.n == 1 {
				*(*byte)(q) = b[pos]
			} else {
				copy(unsafe.Slice((*byte)(q), o.n), b[pos:pos+o.n])
			}
			pos += o.n
		case opBool:
			getBools(unsafe.Slice((*bool)(q), o.n), b[pos:])
			pos += o.n
		case opBlank:
			pos += o.n
		case op16:
			if o.n == 1 && m == modeSwapped {
				*(*uint16)(q) = bits.ReverseBytes16(native.Uint16(b[pos : pos+2]))
			} else {
				get16s(unsafe.Slice((*uint16)(q), o.n), b[pos:], m, order)
			}
			pos += 2 * o.n
		case op32:
			if o.n == 1 && m == modeSwapped {
				*(*uint32)(q) = bits.ReverseBytes32(native.Uint32(b[pos : pos+4]))
			} else {
				get32s(unsafe.Slice((*uint32)(q), o.n), b[pos:], m, order)
			}
			pos += 4 * o.n
		case op64:
			if o.n == 1 && m == modeSwapped {
				*(*uint64)(q) = bits.ReverseBytes64(native.Uint64(b[pos : pos+8]))
			} else {
				get64s(unsafe.Slice((*uint64)(q), o.n), b[pos:], m, order)
			}
			pos += 8 * o.n
		case opRepeat:
			for j := range o.n {
				pos += decodeOps(b[pos:], unsafe.Add(q, uintptr(j)*o.stride), o.sub, m, order)
			}
		}
	}
	return pos
}
