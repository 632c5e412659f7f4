package codec_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/patchbot/patchbot/codec"
)

// The tests in this file hold the fast path in place. They fail if a basic
// type drops out of fastSize's switch — the mistake encoding/binary made
// with unsigned integers in 2014 — even though codec would still encode it
// correctly through reflection, only more slowly.

// basicForms returns data of element type typ as a value, a pointer and a
// slice, filled with random numbers.
func basicForms(typ reflect.Type, r *rand.Rand) []any {
	v := reflect.New(typ)
	fill(v.Elem(), r)
	s := reflect.MakeSlice(reflect.SliceOf(typ), 3, 3)
	fill(s, r)
	return []any{v.Elem().Interface(), v.Interface(), s.Interface()}
}

// fastEntries are the entry points, each run once on data. in holds the
// encoding of data in order, for the decoding ones.
var fastEntries = []struct {
	name   string
	decode bool
	run    func(order binary.ByteOrder, data any, in []byte) error
}{
	{"Write", false, func(order binary.ByteOrder, data any, in []byte) error {
		return codec.Write(new(bytes.Buffer), order, data)
	}},
	{"WritePlain", false, func(order binary.ByteOrder, data any, in []byte) error {
		return codec.Write(new(countingWriter), order, data)
	}},
	{"Append", false, func(order binary.ByteOrder, data any, in []byte) error {
		_, err := codec.Append(nil, order, data)
		return err
	}},
	{"Encode", false, func(order binary.ByteOrder, data any, in []byte) error {
		_, err := codec.Encode(make([]byte, 64), order, data)
		return err
	}},
	{"Size", false, func(order binary.ByteOrder, data any, in []byte) error {
		codec.Size(data)
		return nil
	}},
	{"Encoder", false, func(order binary.ByteOrder, data any, in []byte) error {
		return codec.NewEncoder(io.Discard, order).Encode(data)
	}},
	{"Read", true, func(order binary.ByteOrder, data any, in []byte) error {
		return codec.Read(bytes.NewReader(in), order, data)
	}},
	{"Decode", true, func(order binary.ByteOrder, data any, in []byte) error {
		_, err := codec.Decode(in, order, data)
		return err
	}},
	{"Decoder", true, func(order binary.ByteOrder, data any, in []byte) error {
		return codec.NewDecoder(bytes.NewReader(in), order).Decode(data)
	}},
}

// TestFastPath checks that every basic type, as a value, a pointer and a
// slice, goes through every entry point without taking the reflection
// path.
func TestFastPath(t *testing.T) {
	slowCalls := codec.CountReflection(t)
	r := rand.New(rand.NewPCG(7, 8))
	for _, typ := range basicTypes {
		for _, data := range basicForms(typ, r) {
			for _, order := range orders {
				in, err := binary.Append(nil, order, data)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range fastEntries {
					if e.decode && reflect.TypeOf(data) == typ {
						continue // a value cannot be decoded into
					}
					before := slowCalls()
					if err := e.run(order, data, in); err != nil {
						t.Errorf("%s(%T, %s): %v", e.name, data, orderName(order), err)
					}
					if n := slowCalls() - before; n != 0 {
						t.Errorf("%s(%T, %s) took the reflection path (%d calls)", e.name, data, orderName(order), n)
					}
				}
			}
		}
	}
}

// TestReflectionPathCounted checks that the counter TestFastPath relies on
// does count.
func TestReflectionPathCounted(t *testing.T) {
	slowCalls := codec.CountReflection(t)
	codec.Size(&s)
	if slowCalls() != 1 {
		t.Fatal("Size(*Struct) did not count as a reflection path call")
	}
}

// loopReader serves the same bytes forever without allocating.
type loopReader struct {
	b   []byte
	off int
}

func (r *loopReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.b[r.off:])
		n += c
		r.off = (r.off + c) % len(r.b)
	}
	return n, nil
}

// TestFastPathAllocs checks that encoding and decoding a basic value,
// pointer or slice, already boxed in an interface, allocates nothing.
func TestFastPathAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	r := rand.New(rand.NewPCG(9, 10))
	for _, typ := range basicTypes {
		for _, data := range basicForms(typ, r) {
			for _, order := range orders {
				in, err := binary.Append(nil, order, data)
				if err != nil {
					t.Fatal(err)
				}
				buf := make([]byte, 64)
				var bb bytes.Buffer
				bb.Grow(64)
				enc := codec.NewEncoder(io.Discard, order)
				dec := codec.NewDecoder(&loopReader{b: in}, order)
				checks := []struct {
					name   string
					decode bool
					f      func()
				}{
					{"Encoder", false, func() { enc.Encode(data) }},
					{"Encode", false, func() { codec.Encode(buf, order, data) }},
					{"Append", false, func() { codec.Append(buf[:0], order, data) }},
					{"Write to bytes.Buffer", false, func() { bb.Reset(); codec.Write(&bb, order, data) }},
					{"Size", false, func() { codec.Size(data) }},
					{"Decoder", true, func() { dec.Decode(data) }},
					{"Decode", true, func() { codec.Decode(in, order, data) }},
				}
				for _, c := range checks {
					if c.decode && reflect.TypeOf(data) == typ {
						continue
					}
					if n := testing.AllocsPerRun(100, c.f); n != 0 {
						t.Errorf("%s(%T, %s): %v allocations, want 0", c.name, data, orderName(order), n)
					}
				}
			}
		}
	}
}

// onlyReader and onlyWriter hide every method of the reader or writer they
// wrap but Read or Write, as a caller's own wrapper types do: codec cannot
// recognise them (no AvailableBuffer), so Read and Write must bring their
// own buffers.
type onlyReader struct{ r io.Reader }

func (r onlyReader) Read(p []byte) (int, error) { return r.r.Read(p) }

type onlyWriter struct{ w io.Writer }

func (w onlyWriter) Write(p []byte) (int, error) { return w.w.Write(p) }

// TestReadWriteAllocs checks that the package-level Read and Write of every
// basic type, as a value, a pointer and a slice, allocate nothing, whatever
// the reader or writer: a buffer handed to an unknown io.Reader or io.Writer
// escapes, so this holds only because codec reuses its buffers.
func TestReadWriteAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	r := rand.New(rand.NewPCG(11, 12))
	for _, typ := range basicTypes {
		for _, data := range basicForms(typ, r) {
			for _, order := range orders {
				in, err := binary.Append(nil, order, data)
				if err != nil {
					t.Fatal(err)
				}
				var bb bytes.Buffer
				bb.Grow(64)
				var cw countingWriter
				readers := []struct {
					name string
					r    io.Reader
				}{
					{"loopReader", &loopReader{b: in}},
					{"wrapped loopReader", onlyReader{&loopReader{b: in}}},
					{"wrapped bytes.Reader", onlyReader{bytes.NewReader(bytes.Repeat(in, 200))}},
				}
				writers := []struct {
					name  string
					w     io.Writer
					reset func()
				}{
					{"io.Discard", io.Discard, func() {}},
					{"wrapped io.Discard", onlyWriter{io.Discard}, func() {}},
					{"wrapped bytes.Buffer", onlyWriter{&bb}, bb.Reset},
					{"countingWriter", &cw, func() { cw.buf = cw.buf[:0] }},
				}
				for _, w := range writers {
					w.reset()
					codec.Write(w.w, order, data) // countingWriter's buffer grows once
					f := func() { w.reset(); codec.Write(w.w, order, data) }
					if n := testing.AllocsPerRun(100, f); n != 0 {
						t.Errorf("Write(%s, %s, %T): %v allocations, want 0", w.name, orderName(order), data, n)
					}
				}
				if reflect.TypeOf(data) == typ {
					continue // a value cannot be decoded into
				}
				for _, rd := range readers {
					f := func() {
						if err := codec.Read(rd.r, order, data); err != nil {
							t.Fatal(err)
						}
					}
					if n := testing.AllocsPerRun(100, f); n != 0 {
						t.Errorf("Read(%s, %s, %T): %v allocations, want 0", rd.name, orderName(order), data, n)
					}
				}
			}
		}
	}
}

// vals holds values read at call sites, so that they are not constants.
var vals = s

// TestNoEscape checks that data does not escape: a value boxed at the call
// site, or a pointer to a local variable, stays on the stack, so a call
// allocates nothing.
func TestNoEscape(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	var bb bytes.Buffer
	bb.Grow(256)
	enc := codec.NewEncoder(io.Discard, codec.BigEndian)
	dec := codec.NewDecoder(&loopReader{b: big}, codec.BigEndian)
	var rd io.Reader = onlyReader{&loopReader{b: big}}
	var wr io.Writer = onlyWriter{io.Discard}
	buf := make([]byte, 128)
	checks := []struct {
		name string
		f    func()
	}{
		{"Encoder", func() {
			enc.Encode(vals.Int16)
			enc.Encode(vals.Uint32)
			enc.Encode(vals.Float64)
		}},
		{"Write", func() {
			bb.Reset()
			codec.Write(&bb, codec.BigEndian, vals.Int64)
			codec.Write(&bb, codec.LittleEndian, vals.Uint16)
		}},
		{"Append", func() { codec.Append(buf[:0], codec.BigEndian, vals.Uint64) }},
		{"Encode", func() { codec.Encode(buf, codec.NativeEndian, vals.Float32) }},
		{"Size", func() { codec.Size(vals.Int32) }},
		{"Decoder", func() {
			var x uint32
			var y Struct
			dec.Decode(&x)
			dec.Decode(&y)
		}},
		{"Read", func() {
			var x uint16
			var y float64
			codec.Read(rd, codec.BigEndian, &x)
			codec.Read(rd, codec.LittleEndian, &y)
		}},
		{"Write to a wrapped writer", func() {
			codec.Write(wr, codec.BigEndian, vals.Uint32)
			codec.Write(wr, codec.NativeEndian, vals.Int8)
		}},
		{"Decode", func() {
			var x int64
			var y Pair
			codec.Decode(big, codec.BigEndian, &x)
			codec.Decode(big, codec.BigEndian, &y)
		}},
		{"Struct", func() {
			bb.Reset()
			codec.Write(&bb, codec.BigEndian, vals)
			codec.Encode(buf, codec.LittleEndian, Pair{A: vals.Uint8, B: vals.Uint32})
		}},
	}
	for _, c := range checks {
		if n := testing.AllocsPerRun(100, c.f); n != 0 {
			t.Errorf("%s: %v allocations, want 0", c.name, n)
		}
	}
}
