package codec_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/patchbot/patchbot/codec"
)

// The differential tests run every entry point of codec and its
// counterpart in encoding/binary on the same data and require the same
// bytes, the same decoded memory and the same errors. Where encoding/binary
// panics, codec must return an error.

// A result is what one call returned.
type result struct {
	out      []byte // encoded bytes, or decoded memory
	n        int    // count returned, bytes consumed, or writes made
	err      error
	panicked any
}

func (r result) String() string {
	if r.panicked != nil {
		return fmt.Sprintf("panic(%v)", r.panicked)
	}
	return fmt.Sprintf("out=%x n=%d err=%v", r.out, r.n, r.err)
}

// call runs f and turns a panic into a result.
func call(f func() result) (r result) {
	defer func() {
		if p := recover(); p != nil {
			r = result{panicked: p}
		}
	}()
	return f()
}

// countingWriter is an io.Writer without an AvailableBuffer method that
// counts its Write calls.
type countingWriter struct {
	buf    []byte
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// An encodeEntry is one way of encoding, in both packages.
type encodeEntry struct {
	name           string
	stdFn, codecFn string // function names in error messages
	std, codec     func(order binary.ByteOrder, data any) result
}

var prefix = []byte{0xaa, 0xbb}

var encodeEntries = []encodeEntry{
	{
		name: "Write", stdFn: "binary.Write", codecFn: "codec.Write",
		std: func(order binary.ByteOrder, data any) result {
			var buf bytes.Buffer
			err := binary.Write(&buf, order, data)
			return result{out: buf.Bytes(), err: err}
		},
		codec: func(order binary.ByteOrder, data any) result {
			var buf bytes.Buffer
			err := codec.Write(&buf, order, data)
			return result{out: buf.Bytes(), err: err}
		},
	},
	{
		name: "WriteLargeBuffer", stdFn: "binary.Write", codecFn: "codec.Write",
		std: func(order binary.ByteOrder, data any) result {
			buf := bytes.NewBuffer(make([]byte, 0, 4096))
			err := binary.Write(buf, order, data)
			return result{out: buf.Bytes(), err: err}
		},
		codec: func(order binary.ByteOrder, data any) result {
			buf := bytes.NewBuffer(make([]byte, 0, 4096))
			err := codec.Write(buf, order, data)
			return result{out: buf.Bytes(), err: err}
		},
	},
	{
		name: "WritePlain", stdFn: "binary.Write", codecFn: "codec.Write",
		std: func(order binary.ByteOrder, data any) result {
			var w countingWriter
			err := binary.Write(&w, order, data)
			return result{out: w.buf, n: w.writes, err: err}
		},
		codec: func(order binary.ByteOrder, data any) result {
			var w countingWriter
			err := codec.Write(&w, order, data)
			return result{out: w.buf, n: w.writes, err: err}
		},
	},
	{
		name: "WriteBufio", stdFn: "binary.Write", codecFn: "codec.Write",
		std: func(order binary.ByteOrder, data any) result {
			var buf bytes.Buffer
			w := bufio.NewWriterSize(&buf, 16)
			err := binary.Write(w, order, data)
			w.Flush()
			return result{out: buf.Bytes(), err: err}
		},
		codec: func(order binary.ByteOrder, data any) result {
			var buf bytes.Buffer
			w := bufio.NewWriterSize(&buf, 16)
			err := codec.Write(w, order, data)
			w.Flush()
			return result{out: buf.Bytes(), err: err}
		},
	},
	{
		name: "Append", stdFn: "binary.Append", codecFn: "codec.Append",
		std: func(order binary.ByteOrder, data any) result {
			out, err := binary.Append(bytes.Clone(prefix), order, data)
			return result{out: out, err: err}
		},
		codec: func(order binary.ByteOrder, data any) result {
			out, err := codec.Append(bytes.Clone(prefix), order, data)
			return result{out: out, err: err}
		},
	},
	{
		name: "Encode", stdFn: "binary.Encode", codecFn: "codec.Encode",
		std: func(order binary.ByteOrder, data any) result {
			buf := make([]byte, max(binary.Size(data), 0)+3)
			n, err := binary.Encode(buf, order, data)
			return result{out: buf, n: n, err: err}
		},
		codec: func(order binary.ByteOrder, data any) result {
			buf := make([]byte, max(binary.Size(data), 0)+3)
			n, err := codec.Encode(buf, order, data)
			return result{out: buf, n: n, err: err}
		},
	},
	{
		name: "EncodeShort", stdFn: "binary.Encode", codecFn: "codec.Encode",
		std: func(order binary.ByteOrder, data any) result {
			buf := make([]byte, max(binary.Size(data)-1, 0))
			n, err := binary.Encode(buf, order, data)
			return result{out: buf, n: n, err: err}
		},
		codec: func(order binary.ByteOrder, data any) result {
			buf := make([]byte, max(binary.Size(data)-1, 0))
			n, err := codec.Encode(buf, order, data)
			return result{out: buf, n: n, err: err}
		},
	},
	{
		name: "Encoder", stdFn: "binary.Write", codecFn: "codec.Encoder.Encode",
		std: func(order binary.ByteOrder, data any) result {
			var w countingWriter
			err := binary.Write(&w, order, data)
			return result{out: w.buf, n: w.writes, err: err}
		},
		codec: func(order binary.ByteOrder, data any) result {
			var w countingWriter
			err := codec.NewEncoder(&w, order).Encode(data)
			return result{out: w.buf, n: w.writes, err: err}
		},
	},
	{
		name: "Size",
		std: func(order binary.ByteOrder, data any) result {
			return result{n: binary.Size(data)}
		},
		codec: func(order binary.ByteOrder, data any) result {
			return result{n: codec.Size(data)}
		},
	},
}

// A decodeEntry is one way of decoding, in both packages. in is the input.
type decodeEntry struct {
	name           string
	stdFn, codecFn string
	std, codec     func(order binary.ByteOrder, data any, in []byte) result
}

var decodeEntries = []decodeEntry{
	{
		name: "Read", stdFn: "binary.Read", codecFn: "codec.Read",
		std: func(order binary.ByteOrder, data any, in []byte) result {
			r := bytes.NewReader(in)
			err := binary.Read(r, order, data)
			return result{out: decoded(data), n: len(in) - r.Len(), err: err}
		},
		codec: func(order binary.ByteOrder, data any, in []byte) result {
			r := bytes.NewReader(in)
			err := codec.Read(r, order, data)
			return result{out: decoded(data), n: len(in) - r.Len(), err: err}
		},
	},
	{
		name: "ReadOneByte", stdFn: "binary.Read", codecFn: "codec.Read",
		std: func(order binary.ByteOrder, data any, in []byte) result {
			err := binary.Read(iotest.OneByteReader(bytes.NewReader(in)), order, data)
			return result{out: decoded(data), err: err}
		},
		codec: func(order binary.ByteOrder, data any, in []byte) result {
			err := codec.Read(iotest.OneByteReader(bytes.NewReader(in)), order, data)
			return result{out: decoded(data), err: err}
		},
	},
	{
		name: "Decode", stdFn: "binary.Decode", codecFn: "codec.Decode",
		std: func(order binary.ByteOrder, data any, in []byte) result {
			// encoding/binary's Decode panics (index out of range) when
			// given a []bool or []int8 and more bytes than it needs;
			// it decodes only the first Size bytes in any case.
			if size := binary.Size(data); size >= 0 && size < len(in) {
				in = in[:size]
			}
			n, err := binary.Decode(in, order, data)
			return result{out: decoded(data), n: n, err: err}
		},
		codec: func(order binary.ByteOrder, data any, in []byte) result {
			n, err := codec.Decode(in, order, data)
			return result{out: decoded(data), n: n, err: err}
		},
	},
	{
		name: "Decoder", stdFn: "binary.Read", codecFn: "codec.Decoder.Decode",
		std: func(order binary.ByteOrder, data any, in []byte) result {
			r := bytes.NewReader(in)
			err := binary.Read(r, order, data)
			return result{out: decoded(data), n: len(in) - r.Len(), err: err}
		},
		codec: func(order binary.ByteOrder, data any, in []byte) result {
			r := bytes.NewReader(in)
			err := codec.NewDecoder(r, order).Decode(data)
			return result{out: decoded(data), n: len(in) - r.Len(), err: err}
		},
	},
}

// compare reports how codec's result c differs from encoding/binary's
// result s, or "" if it does not. stdFn and codecFn are the function names
// in error messages. If lenient is set, codec deliberately reports errors
// that encoding/binary words differently or finds later (nil pointers,
// decoding into unexported fields): then only success must agree. If
// inPlace is set, codec reads into the data's own memory, and the memory
// left by a failed call need not agree.
func compare(s, c result, stdFn, codecFn string, lenient, inPlace bool) string {
	if c.panicked != nil {
		return fmt.Sprintf("codec panicked: %v", c.panicked)
	}
	if s.panicked != nil || lenient && s.err != nil {
		if c.err == nil {
			return fmt.Sprintf("encoding/binary failed (%v), codec succeeded: %v", s, c)
		}
		if !strings.HasPrefix(c.err.Error(), codecFn+": ") && (s.err == nil || c.err.Error() != s.err.Error()) {
			return fmt.Sprintf("codec error %q does not start with %q", c.err, codecFn)
		}
		return ""
	}
	switch {
	case s.err == nil && c.err != nil:
		return fmt.Sprintf("codec failed: %v; encoding/binary: %v", c.err, s)
	case s.err != nil && c.err == nil:
		return fmt.Sprintf("codec succeeded: %v; encoding/binary failed: %v", c, s.err)
	case s.err != nil:
		want := s.err.Error()
		if stdFn != "" {
			want = strings.Replace(want, stdFn+":", codecFn+":", 1)
		}
		if c.err.Error() != want {
			return fmt.Sprintf("codec error %q, want %q", c.err, want)
		}
		if errors.Is(s.err, io.EOF) != errors.Is(c.err, io.EOF) ||
			errors.Is(s.err, io.ErrUnexpectedEOF) != errors.Is(c.err, io.ErrUnexpectedEOF) {
			return fmt.Sprintf("codec error %v is not encoding/binary's %v", c.err, s.err)
		}
	}
	if inPlace && s.err != nil {
		s.out, c.out = nil, nil
	}
	if !bytes.Equal(s.out, c.out) || s.n != c.n {
		return fmt.Sprintf("codec: %v\nencoding/binary: %v", c, s)
	}
	return ""
}

// decoded returns the memory of data after a decoding call, with float32
// NaNs quieted (see quietNaNs).
func decoded(data any) []byte {
	quietNaNs(data)
	return memory(data)
}

// isBasicSlice reports whether data is a slice of one of the basic types
// of the fast path, which Read and Decoder read in place.
func isBasicSlice(data any) bool {
	t := reflect.TypeOf(data)
	return t != nil && t.Kind() == reflect.Slice && t.Name() == "" && slices.Contains(basicTypes, t.Elem())
}

// fixStdlibCache corrects encoding/binary's result s for element type typ
// where its size cache makes it wrong. Once encoding/binary has sized a
// struct value that is not fixed-size (for example WithInt), it caches -1
// as that struct's size and then sizes a slice of n such structs as -n:
// Size returns -3 for three elements, and an empty slice is accepted as 0
// bytes. codec always answers -1 and refuses the data. fixStdlibCache
// reports whether it changed s into an error, which only codec's error
// prefix can then be checked against.
func fixStdlibCache(s result, typ reflect.Type, isSize bool) (result, bool) {
	if binary.Size(reflect.New(typ).Interface()) != -1 || s.panicked != nil {
		return s, false
	}
	if isSize {
		s.n = -1
		return s, false
	}
	if s.err == nil {
		return result{err: errors.New("not fixed-size")}, true
	}
	return s, false
}

func orderName(order binary.ByteOrder) string {
	if _, ok := order.(otherOrder); ok {
		return "other(" + order.String() + ")"
	}
	return order.String()
}

func TestEncodeMatchesStdlib(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, typ := range testTypes {
		for _, f := range forms {
			t.Run(typ.String()+"/"+f.name, func(t *testing.T) {
				data := f.make(typ, r)
				for _, order := range orders {
					for _, e := range encodeEntries {
						s := call(func() result { return e.std(order, data) })
						c := call(func() result { return e.codec(order, data) })
						s, broken := fixStdlibCache(s, typ, e.name == "Size")
						if msg := compare(s, c, e.stdFn, e.codecFn, isNilPointer(data) || broken, false); msg != "" {
							t.Errorf("%s %s(%T): %s", orderName(order), e.name, data, msg)
						}
					}
				}
			})
		}
	}
}

func TestDecodeMatchesStdlib(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, typ := range testTypes {
		for _, f := range forms {
			t.Run(typ.String()+"/"+f.name, func(t *testing.T) {
				size := max(binary.Size(f.make(typ, nil)), 0)
				full := make([]byte, size+2)
				for i := range full {
					full[i] = byte(r.Uint32())
				}
				inputs := [][]byte{full, full[:size], nil, full[:size/2]}
				if size > 0 {
					inputs = append(inputs, full[:size-1])
				}
				// Decoding into a value (not a pointer) is an error, which
				// comes before or after reading the input depending on
				// the path the type takes, in both packages.
				lenient := isNilPointer(f.make(typ, nil)) || readOnly(typ) || isValue(f.make(typ, nil))
				for _, order := range orders {
					for _, e := range decodeEntries {
						for _, in := range inputs {
							sd, cd := f.make(typ, nil), f.make(typ, nil)
							s := call(func() result { return e.std(order, sd, in) })
							c := call(func() result { return e.codec(order, cd, in) })
							s, broken := fixStdlibCache(s, typ, false)
							inPlace := isBasicSlice(cd) && e.name != "Decode"
							if msg := compare(s, c, e.stdFn, e.codecFn, lenient || broken, inPlace); msg != "" {
								t.Errorf("%s %s(%T) of %d bytes: %s", orderName(order), e.name, cd, len(in), msg)
							}
						}
					}
				}
			})
		}
	}
}

// TestNilInterface checks data == nil, on which encoding/binary panics.
func TestNilInterface(t *testing.T) {
	if n := codec.Size(nil); n != -1 {
		t.Errorf("Size(nil) = %d, want -1", n)
	}
	var buf bytes.Buffer
	checks := []struct {
		name string
		err  error
	}{
		{"Write", codec.Write(&buf, codec.BigEndian, nil)},
		{"Read", codec.Read(&buf, codec.BigEndian, nil)},
		{"Encoder", codec.NewEncoder(&buf, codec.BigEndian).Encode(nil)},
		{"Decoder", codec.NewDecoder(&buf, codec.BigEndian).Decode(nil)},
	}
	_, err := codec.Append(nil, codec.BigEndian, nil)
	checks = append(checks, struct {
		name string
		err  error
	}{"Append", err})
	_, err = codec.Encode(make([]byte, 8), codec.BigEndian, nil)
	checks = append(checks, struct {
		name string
		err  error
	}{"Encode", err})
	_, err = codec.Decode(make([]byte, 8), codec.BigEndian, nil)
	checks = append(checks, struct {
		name string
		err  error
	}{"Decode", err})
	for _, c := range checks {
		if c.err == nil || !strings.Contains(c.err.Error(), "<nil>") {
			t.Errorf("%s(nil): error %v, want one that mentions <nil>", c.name, c.err)
		}
	}
}

// TestKnownEncodings checks codec against the bytes of encoding/binary's
// own tests, in both orders and through every encoder.
func TestKnownEncodings(t *testing.T) {
	little := bytes.Clone(big)
	swap := func(b []byte) {
		for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
			b[i], b[j] = b[j], b[i]
		}
	}
	for _, r := range [][2]int{{1, 3}, {3, 7}, {7, 15}, {16, 18}, {18, 22}, {22, 30}, {30, 34}, {34, 42}, {42, 46}, {46, 50}, {50, 58}, {58, 66}} {
		swap(little[r[0]:r[1]])
	}
	for _, tc := range []struct {
		order codec.ByteOrder
		want  []byte
	}{{codec.BigEndian, big}, {codec.LittleEndian, little}} {
		for _, data := range []any{s, &s} {
			var buf bytes.Buffer
			if err := codec.Write(&buf, tc.order, data); err != nil || !bytes.Equal(buf.Bytes(), tc.want) {
				t.Errorf("Write(%v, %T) = %x, %v; want %x", tc.order, data, buf.Bytes(), err, tc.want)
			}
			var got Struct
			if err := codec.Read(bytes.NewReader(tc.want), tc.order, &got); err != nil || !reflect.DeepEqual(got, s) {
				t.Errorf("Read(%v) = %+v, %v; want %+v", tc.order, got, err, s)
			}
		}
	}
}

// TestBlankFieldsZero checks that blank fields are written as zeros even
// when their memory is not, and are left alone by decoding.
func TestBlankFieldsZero(t *testing.T) {
	var b BlankFields
	fill(reflect.ValueOf(&b).Elem(), rand.New(rand.NewPCG(5, 6)))
	for _, order := range orders {
		out, err := codec.Append(nil, order, &b)
		if err != nil {
			t.Fatal(err)
		}
		// A, _, B, _, C, _, _: the blank runs are at 4:8, 16:24, 25:32, 32:64.
		for _, r := range [][2]int{{4, 8}, {16, 24}, {25, 64}} {
			if !bytes.Equal(out[r[0]:r[1]], make([]byte, r[1]-r[0])) {
				t.Errorf("%v: blank bytes %d:%d = %x, want zeros", orderName(order), r[0], r[1], out[r[0]:r[1]])
			}
		}
		before := b
		in := bytes.Repeat([]byte{0x5a}, len(out))
		if _, err := codec.Decode(in, order, &b); err != nil {
			t.Fatal(err)
		}
		if memory(&b)[4] != memory(&before)[4] {
			t.Errorf("%v: Decode changed a blank field", orderName(order))
		}
	}
}

// TestSignalingNaN checks that codec keeps the bits of a float32 signaling
// NaN in a struct, where encoding/binary's reflection path quiets it.
func TestSignalingNaN(t *testing.T) {
	const snan = 0x7fa00001
	in := Struct{Float32: math.Float32frombits(snan), Complex64: complex(math.Float32frombits(snan), 0)}
	out, err := codec.Append(nil, codec.BigEndian, &in)
	if err != nil {
		t.Fatal(err)
	}
	if got := binary.BigEndian.Uint32(out[30:]); got != snan {
		t.Errorf("Float32 encoded as %#x, want %#x", got, snan)
	}
	if got := binary.BigEndian.Uint32(out[42:]); got != snan {
		t.Errorf("Complex64 real part encoded as %#x, want %#x", got, snan)
	}
	var back Struct
	if _, err := codec.Decode(out, codec.BigEndian, &back); err != nil {
		t.Fatal(err)
	}
	if got := math.Float32bits(back.Float32); got != snan {
		t.Errorf("Float32 decoded as %#x, want %#x", got, snan)
	}
	if got := math.Float32bits(real(back.Complex64)); got != snan {
		t.Errorf("Complex64 real part decoded as %#x, want %#x", got, snan)
	}
}

// TestReadOnlyError checks the error that replaces encoding/binary's panic
// when decoding into unexported fields.
func TestReadOnlyError(t *testing.T) {
	var u Unexported
	_, err := codec.Decode(make([]byte, 6), codec.LittleEndian, &u)
	const want = "codec.Decode: cannot decode into unexported field codec_test.Unexported.b of *codec_test.Unexported"
	if err == nil || err.Error() != want {
		t.Errorf("Decode(&Unexported{}) error = %v, want %q", err, want)
	}
	// Encoding reads unexported fields, as encoding/binary does.
	u = Unexported{A: 1, b: 2}
	out, err := codec.Append(nil, codec.LittleEndian, u)
	if err != nil || !bytes.Equal(out, []byte{1, 0, 0, 0, 2, 0}) {
		t.Errorf("Append(Unexported) = %x, %v", out, err)
	}
}

// TestReadErrors checks the io errors of a short input, and that a failed
// Read leaves data unchanged unless it is a slice of basic values, which
// Read fills in place.
func TestReadErrors(t *testing.T) {
	const data = "0123456789abcdef"
	for _, target := range []func() any{
		func() any { return make([]int32, 4) },
		func() any { return new([4]uint32) },
		func() any {
			return new(struct {
				A, B, C, D byte
				E          int32
				F          float64
			})
		},
	} {
		for i := 0; i <= len(data); i++ {
			var want error
			switch i {
			case 0:
				want = io.EOF
			case len(data):
				want = nil
			default:
				want = io.ErrUnexpectedEOF
			}
			v := target()
			before := memory(v)
			err := codec.Read(strings.NewReader(data[:i]), codec.BigEndian, v)
			if err != want {
				t.Errorf("Read(%T) of %d bytes: error %v, want %v", v, i, err, want)
			}
			if err != nil && !isBasicSlice(v) && !bytes.Equal(memory(v), before) {
				t.Errorf("Read(%T) of %d bytes changed data on error", v, i)
			}
		}
	}
}

// TestReadBoolsInPlace checks that a []bool read in place holds only 0s
// and 1s, even when the read fails halfway.
func TestReadBoolsInPlace(t *testing.T) {
	for _, in := range [][]byte{{2, 0, 255, 1}, {7, 0, 9}} {
		v := make([]bool, 4)
		err := codec.Read(bytes.NewReader(in), codec.BigEndian, v)
		if len(in) == 4 && err != nil || len(in) < 4 && err != io.ErrUnexpectedEOF {
			t.Errorf("Read(%v): error %v", in, err)
		}
		for i, b := range memory(v) {
			if b > 1 {
				t.Errorf("Read(%v): element %d holds %d", in, i, b)
			}
		}
		err = codec.NewDecoder(bytes.NewReader(in), codec.BigEndian).Decode(v)
		for i, b := range memory(v) {
			if b > 1 {
				t.Errorf("Decoder.Decode(%v): element %d holds %d (error %v)", in, i, b, err)
			}
		}
	}
}

// TestReaderError checks that a reader's own error is passed on.
func TestReaderError(t *testing.T) {
	boom := errors.New("boom")
	var x uint32
	if err := codec.Read(iotest.ErrReader(boom), codec.BigEndian, &x); err != boom {
		t.Errorf("Read: error %v, want %v", err, boom)
	}
	if err := codec.NewDecoder(iotest.ErrReader(boom), codec.BigEndian).Decode(&s); err != boom {
		t.Errorf("Decoder.Decode: error %v, want %v", err, boom)
	}
	// A reader that returns its last bytes together with io.EOF.
	r := iotest.DataErrReader(bytes.NewReader([]byte{1, 2, 3, 4}))
	if err := codec.Read(r, codec.BigEndian, &x); err != nil || x != 0x01020304 {
		t.Errorf("Read from DataErrReader = %#x, %v", x, err)
	}
}

// errWriter fails every write.
type errWriter struct{ err error }

func (w errWriter) Write(p []byte) (int, error) { return 0, w.err }

func TestWriterError(t *testing.T) {
	boom := errors.New("boom")
	for _, data := range []any{uint16(1), &s, []uint32{1, 2}, []Pair{{}}} {
		if err := codec.Write(errWriter{boom}, codec.BigEndian, data); err != boom {
			t.Errorf("Write(%T): error %v, want %v", data, err, boom)
		}
		if err := codec.NewEncoder(errWriter{boom}, codec.BigEndian).Encode(data); err != boom {
			t.Errorf("Encoder.Encode(%T): error %v, want %v", data, err, boom)
		}
	}
}

// TestOrdersAreStdlib checks that codec's byte orders are encoding/binary's.
func TestOrdersAreStdlib(t *testing.T) {
	if codec.ByteOrder(codec.BigEndian) != binary.ByteOrder(binary.BigEndian) ||
		codec.ByteOrder(codec.LittleEndian) != binary.ByteOrder(binary.LittleEndian) ||
		codec.ByteOrder(codec.NativeEndian) != binary.ByteOrder(binary.NativeEndian) {
		t.Error("codec's byte orders are not encoding/binary's")
	}
}

// TestDecodeValueReadsNothing checks that a decoder given a value, which it
// cannot store into, refuses it before reading: encoding/binary reads the
// value's size first, which loses those bytes for the next read.
func TestDecodeValueReadsNothing(t *testing.T) {
	for _, v := range []any{uint8(1), int16(2), uint32(3), float64(4), true} {
		r := bytes.NewReader(make([]byte, 16))
		err := codec.Read(r, codec.BigEndian, v)
		if err == nil || !strings.Contains(err.Error(), "invalid type") {
			t.Errorf("Read(%T): err = %v, want invalid type", v, err)
		}
		if r.Len() != 16 {
			t.Errorf("Read(%T) consumed %d bytes, want 0", v, 16-r.Len())
		}
		r = bytes.NewReader(make([]byte, 16))
		if err := codec.NewDecoder(r, codec.LittleEndian).Decode(v); err == nil || r.Len() != 16 {
			t.Errorf("Decoder.Decode(%T): err = %v, consumed %d bytes; want an error and 0", v, err, 16-r.Len())
		}
		if _, err := codec.Decode(make([]byte, 16), codec.BigEndian, v); err == nil {
			t.Errorf("Decode(%T): no error", v)
		}
	}
}
