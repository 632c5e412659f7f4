// Package codec translates fixed-size values to and from bytes.
//
// It does the job of [encoding/binary]'s Read, Write, Size, Append, Encode
// and Decode, byte for byte, with the same rules for what it accepts: a
// fixed-size value is a bool, int8…int64, uint8…uint64, float32, float64,
// complex64 or complex128, or an array or struct made only of fixed-size
// values (blank _ fields are written as zeros and skipped on read). Data may
// be such a value, a pointer to one, or a slice of them.
//
// It exists to be faster. Basic values, pointers to them and slices of them
// take a fast path that uses no reflection (see fastSize); the byte order is
// recognised once per call, so the machine's own order costs a memory copy
// and the other order a byte swap per element. Structs, arrays and named
// types are compiled once per type into a flat list of copy and swap
// operations over memory (see plan.go). [Encoder] and [Decoder] reuse one
// buffer, so encoding or decoding a fixed-size value allocates nothing.
//
// Where encoding/binary panics (a nil pointer or nil data, decoding into
// unexported struct fields), codec returns an error instead. Other
// deliberate differences: Read and Decoder fill a slice of basic values in
// place, so a failed read may leave it partly overwritten; the bits of a
// float32 NaN are kept exactly in structs and arrays, where
// encoding/binary's reflection converts them through float64. The
// repository's docs/codec.md lists them all, with benchmark figures.
package codec

import (
	"encoding/binary"
	"errors"
	"io"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// A ByteOrder specifies how to convert byte slices into 16-, 32- and 64-bit
// unsigned integers. It is encoding/binary's own interface, so callers can
// pass either package's values. [BigEndian], [LittleEndian] and
// [NativeEndian] are recognised and take specialised code; any other
// implementation works through its methods, more slowly.
type ByteOrder = binary.ByteOrder

// The byte orders are encoding/binary's own values.
var (
	// BigEndian is the big-endian implementation of ByteOrder.
	BigEndian = binary.BigEndian
	// LittleEndian is the little-endian implementation of ByteOrder.
	LittleEndian = binary.LittleEndian
	// NativeEndian is the machine's own byte order.
	NativeEndian = binary.NativeEndian
)

// errBufferTooSmall has the text encoding/binary uses for the same mistake.
var errBufferTooSmall = errors.New("buffer too small")

// Read reads structured binary data from r into data, which must be a
// pointer to a fixed-size value or a slice of fixed-size values. Bytes read
// from r are decoded using order and stored in successive fields of data.
// A zero byte decodes as false and any other byte as true. Fields named _
// are skipped.
//
// Read reads exactly Size(data) bytes, as io.ReadFull does, so the error is
// io.EOF only if no bytes were read and io.ErrUnexpectedEOF if some but not
// all were. A slice of basic values is read into its own memory, without a
// temporary buffer as large as the slice: if Read fails, such a slice may
// have been partly overwritten. Other data is left unchanged on error.
func Read(r io.Reader, order ByteOrder, data any) error {
	if k := decodeKind(data); k != kindNone {
		if isNil(data) {
			return nilPointerError("codec.Read", data)
		}
		// Any buffer handed to r.Read escapes to the heap, so a fresh
		// one would cost an allocation per call: reuse one (see
		// smallSlot). A Decoder keeps its own.
		p := getSmall()
		b := p[:kindSizes[k]]
		n, err := r.Read(b)
		if n < len(b) {
			err = readRest(r, b, n, err)
		} else {
			err = nil
		}
		if err == nil {
			switch p := dataWord(&data); modeOf(order) {
			case modeNative:
				storeNative(p, b, k)
			case modeSwapped:
				storeSwapped(p, b, k)
			default:
				storeOther(p, b, k, order)
			}
		}
		putSmall(p)
		return err
	}
	if sliceSize(data) != 0 {
		return readInPlace(r, modeOf(order), order, data)
	}
	return readSlow(r, order, data)
}

// Write writes the binary representation of data into w using order. Data
// must be a fixed-size value, a slice of fixed-size values, or a pointer to
// such data. Booleans encode as one byte, 1 for true and 0 for false; fields
// named _ are written as zeros.
//
// Write calls w.Write exactly once. When w offers an AvailableBuffer method
// with room enough (as *bytes.Buffer and *bufio.Writer do), the bytes are
// encoded straight into it; a slice whose encoding is its own memory (bytes,
// or any basic type in the machine's byte order) is passed to w as it is.
func Write(w io.Writer, order ByteOrder, data any) error {
	if n := fastSize(data); n != 0 {
		if isNil(data) {
			return nilPointerError("codec.Write", data)
		}
		// As in Read, a buffer handed to w.Write escapes: reuse one.
		var small *smallBuf
		b, ok := available(w, n)
		if !ok {
			small = getSmall()
			b = small[:n]
		}
		switch p := dataWord(&data); modeOf(order) {
		case modeNative:
			encodeNative(b, p, n)
		case modeSwapped:
			encodeSwapped(b, p, n)
		default:
			encodeOther(b, p, n, order)
		}
		_, err := w.Write(b)
		if small != nil {
			putSmall(small)
		}
		return err
	}
	if n := sliceSize(data); n != 0 {
		return writeSlice(w, order, data, n)
	}
	return writeSlow(w, order, data)
}

// writeSlice is Write for data, a slice of the fast path of n bytes.
func writeSlice(w io.Writer, order ByteOrder, data any, n int) error {
	m := modeOf(order)
	if n >= minRaw {
		if b, ok := rawBytes(data, m); ok {
			_, err := w.Write(b)
			return err
		}
	}
	if b, ok := available(w, n); ok {
		encodeSlice(b, m, order, data)
		_, err := w.Write(b)
		return err
	}
	p := getBuf(n)
	defer putBuf(p)
	encodeSlice(*p, m, order, data)
	_, err := w.Write(*p)
	return err
}

// Size returns how many bytes Write would generate to encode v, which must
// be a fixed-size value, a slice of fixed-size values, or a pointer to such
// data. If v is none of these, or a nil pointer, Size returns -1.
func Size(v any) int {
	if n := fastSize(v); n != 0 {
		if isNil(v) {
			return -1
		}
		return n
	}
	if n := sliceSize(v); n != 0 {
		return n
	}
	return sizeSlow(v)
}

// Append appends the binary representation of data to buf and returns the
// extended buffer. buf may be nil. See [Write] for which data are
// acceptable. On error Append returns nil, as encoding/binary does.
func Append(buf []byte, order ByteOrder, data any) ([]byte, error) {
	if n := fastSize(data); n != 0 {
		if isNil(data) {
			return nil, nilPointerError("codec.Append", data)
		}
		buf, b := grow(buf, n)
		switch p := dataWord(&data); modeOf(order) {
		case modeNative:
			encodeNative(b, p, n)
		case modeSwapped:
			encodeSwapped(b, p, n)
		default:
			encodeOther(b, p, n, order)
		}
		return buf, nil
	}
	if n := sliceSize(data); n != 0 {
		buf, b := grow(buf, n)
		encodeSlice(b, modeOf(order), order, data)
		return buf, nil
	}
	return appendSlow(buf, order, data)
}

// Encode encodes the binary representation of data into buf using order.
// It returns the number of bytes written, or an error if buf is too small.
func Encode(buf []byte, order ByteOrder, data any) (int, error) {
	if n := fastSize(data); n != 0 {
		if isNil(data) {
			return 0, nilPointerError("codec.Encode", data)
		}
		if len(buf) < n {
			return 0, errBufferTooSmall
		}
		switch p, b := dataWord(&data), buf[:n]; modeOf(order) {
		case modeNative:
			encodeNative(b, p, n)
		case modeSwapped:
			encodeSwapped(b, p, n)
		default:
			encodeOther(b, p, n, order)
		}
		return n, nil
	}
	if n := sliceSize(data); n != 0 {
		if len(buf) < n {
			return 0, errBufferTooSmall
		}
		encodeSlice(buf[:n], modeOf(order), order, data)
		return n, nil
	}
	return encodeSlow(buf, order, data)
}

// Decode decodes binary data from buf into data using order. It returns the
// number of bytes consumed from buf, or an error if buf is too small.
func Decode(buf []byte, order ByteOrder, data any) (int, error) {
	if k := decodeKind(data); k != kindNone {
		if isNil(data) {
			return 0, nilPointerError("codec.Decode", data)
		}
		n := kindSizes[k]
		if len(buf) < n {
			return 0, errBufferTooSmall
		}
		switch p, b := dataWord(&data), buf[:n]; modeOf(order) {
		case modeNative:
			storeNative(p, b, k)
		case modeSwapped:
			storeSwapped(p, b, k)
		default:
			storeOther(p, b, k, order)
		}
		return n, nil
	}
	if n := sliceSize(data); n != 0 {
		if len(buf) < n {
			return 0, errBufferTooSmall
		}
		decodeSlice(buf[:n], modeOf(order), order, data)
		return n, nil
	}
	return decodeSlow(buf, order, data)
}

// readInPlace reads into the memory of data, a slice of the fast path, and
// decodes it there.
func readInPlace(r io.Reader, m mode, order ByteOrder, data any) error {
	b, _ := sliceBytes(data)
	err := readFull(r, b)
	if err == nil {
		decodeInPlace(data, m, order)
	} else if s, ok := data.([]bool); ok {
		decodeInPlace(s, m, order) // a bool must hold 0 or 1, error or not
	}
	return err
}

// readFull reads exactly len(b) bytes from r. It is io.ReadFull, with the
// same errors, written out because the two calls io.ReadFull makes before
// reaching r are a measurable part of decoding one small value. Callers
// that want to save one more call make the first r.Read themselves and
// call readRest only if it fell short.
func readFull(r io.Reader, b []byte) error {
	return readRest(r, b, 0, nil)
}

// readRest finishes reading b from r after a first read returned n, err.
func readRest(r io.Reader, b []byte, n int, err error) error {
	for n < len(b) && err == nil {
		var nn int
		nn, err = r.Read(b[n:])
		n += nn
	}
	switch {
	case n >= len(b):
		return nil
	case n > 0 && err == io.EOF:
		return io.ErrUnexpectedEOF
	}
	return err
}

// grow extends buf by n bytes and returns the extended buffer and the slice
// of it that starts at the old length, as encoding/binary's Append does.
func grow(buf []byte, n int) (buf2, pos []byte) {
	l := len(buf)
	buf = slices.Grow(buf, n)[:l+n]
	return buf, buf[l:]
}

// available returns n bytes of w's own free buffer space, if w offers it.
// Encoding into that space and then passing it to w.Write, the use
// bytes.Buffer and bufio.Writer document for AvailableBuffer, saves a
// temporary buffer, and w.Write then copies the bytes onto themselves.
func available(w io.Writer, n int) ([]byte, bool) {
	a, ok := w.(interface{ AvailableBuffer() []byte })
	if !ok {
		return nil, false
	}
	b := a.AvailableBuffer()
	if cap(b) < n {
		return nil, false
	}
	return b[:n], true
}

// minRaw is the size from which Write passes a slice's own memory to the
// writer when it can (see rawBytes). Below it, copying costs less than
// finding out.
const minRaw = 64

// maxTiny is the size up to which Write takes its temporary buffer from
// getSmall rather than bufPool. (An Encoder needs neither.)
const maxTiny = 16

// A smallBuf is the temporary buffer of Read and Write for a basic value,
// or for a slice of at most maxTiny bytes when the writer has no buffer of
// its own to offer. Any buffer handed to an io.Reader or io.Writer escapes
// to the heap, a fresh one per call costing an allocation; so Read and
// Write reuse them, which io.Reader and io.Writer implementations allow by
// not retaining the slices they are given.
type smallBuf [maxTiny]byte

// smallSlot holds the smallBuf that Read and Write take first: one atomic
// swap to take it and one to give it back cost about half a sync.Pool
// round trip (Get and Put pin the goroutine to its P, two calls each).
// A call that finds the slot empty, because another goroutine holds its
// buffer, takes one from smallPool instead, so concurrent calls never
// allocate either, and gives it back there.
var (
	smallSlot atomic.Pointer[smallBuf]
	smallPool = sync.Pool{New: func() any { return new(smallBuf) }}
)

// getSmall returns a smallBuf for the caller's use until it calls putSmall.
func getSmall() *smallBuf {
	if p := smallSlot.Swap(nil); p != nil {
		return p
	}
	return smallPool.Get().(*smallBuf)
}

// putSmall gives p back for reuse.
func putSmall(p *smallBuf) {
	if !smallSlot.CompareAndSwap(nil, p) {
		smallPool.Put(p)
	}
}

// maxPooled is the largest temporary buffer kept for reuse.
const maxPooled = 64 << 10

// bufPool holds the temporary buffers of the reflection path and of Write
// when the writer has no buffer of its own to offer. io.Reader and
// io.Writer implementations must not retain the slices they are given, so
// a buffer can be reused as soon as the call returns.
var bufPool = sync.Pool{New: func() any { return new([]byte) }}

// getBuf returns a pooled buffer of length n.
func getBuf(n int) *[]byte {
	p := bufPool.Get().(*[]byte)
	if cap(*p) < n {
		*p = make([]byte, n, max(n, 64))
	}
	*p = (*p)[:n]
	return p
}

// putBuf returns p to the pool unless it is too large to keep.
func putBuf(p *[]byte) {
	if cap(*p) <= maxPooled {
		bufPool.Put(p)
	}
}

// eface is the memory layout of an interface value of type any: a type word
// and a data word. For the types codec accepts the data word is the pointer
// itself when data is a pointer, and otherwise points to a copy of the
// value (the "box"), which is never written to.
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// dataWord returns the data word of *v.
func dataWord(v *any) unsafe.Pointer {
	return (*eface)(unsafe.Pointer(v)).data
}

// isNil reports whether data is a nil pointer. For the types fastSize
// accepts, that is exactly when the data word is nil: values and slices are
// boxed, so their data word never is.
func isNil(data any) bool {
	return dataWord(&data) == nil
}

// typeString returns the name of data's type for an error message.
func typeString(data any) string {
	if data == nil {
		return "<nil>"
	}
	return reflect.TypeOf(data).String()
}

// invalidTypeError is the error of Read and Decode for data that is not a
// pointer or slice of fixed-size data, worded as encoding/binary's.
func invalidTypeError(fn string, data any) error {
	return errors.New(fn + ": invalid type " + typeString(data))
}

// notFixedError is the error of the encoding functions for data that is not
// fixed-size, worded as encoding/binary's.
func notFixedError(fn string, data any) error {
	return errors.New(fn + ": some values are not fixed-sized in type " + typeString(data))
}

// nilPointerError is the error for a nil pointer, where encoding/binary
// either panics or reports a type error.
func nilPointerError(fn string, data any) error {
	return errors.New(fn + ": nil pointer of type " + typeString(data))
}
