package codec

import "io"

// An Encoder writes the binary representation of values to a stream in one
// byte order. It works out the byte order once and keeps one buffer for
// all its calls, so encoding a fixed-size value allocates nothing. Each
// value is written with one call of the stream's Write method, as [Write]
// does.
//
// Use NewEncoder to make one. An Encoder is not safe for concurrent use.
type Encoder struct {
	w     io.Writer
	order ByteOrder
	mode  mode
	buf   []byte
}

// NewEncoder returns an Encoder that writes to w using order.
func NewEncoder(w io.Writer, order ByteOrder) *Encoder {
	return &Encoder{w: w, order: order, mode: modeOf(order), buf: make([]byte, 64)}
}

// Encode writes the binary representation of data, with one call of the
// writer's Write method. It accepts the same data as [Write].
func (e *Encoder) Encode(data any) error {
	n := fastSize(data)
	if n == 0 || isNil(data) {
		return e.encodeLarge(data, n)
	}
	b := e.buf[:n]
	switch p := dataWord(&data); e.mode {
	case modeNative:
		encodeNative(b, p, n)
	case modeSwapped:
		encodeSwapped(b, p, n)
	default:
		encodeOther(b, p, n, e.order)
	}
	_, err := e.w.Write(b)
	return err
}

// encodeLarge is Encode for everything but basic values and pointers to
// them: nil pointers, slices and the reflection path. Keeping it apart
// keeps Encode's common case short.
func (e *Encoder) encodeLarge(data any, n int) error {
	if n != 0 {
		return nilPointerError("codec.Encoder.Encode", data)
	}
	n = sliceSize(data)
	if n == 0 {
		return e.encodeSlow(data)
	}
	if b, ok := rawBytes(data, e.mode); ok {
		_, err := e.w.Write(b)
		return err
	}
	b := scratch(&e.buf, n)
	encodeSlice(b, e.mode, e.order, data)
	_, err := e.w.Write(b)
	return err
}

// encodeSlow is Encode's reflection path, kept out of Encode so that the
// fast path stays small.
func (e *Encoder) encodeSlow(data any) error {
	t, pr := resolve(data, false)
	if pr != noProblem {
		return resolveError("codec.Encoder.Encode", data, pr, false)
	}
	if b, ok := t.rawBytes(data, e.mode); ok {
		_, err := e.w.Write(b)
		return err
	}
	b := scratch(&e.buf, t.size())
	t.plan.encodeElems(b, t.ptr, t.count, e.mode, e.order)
	_, err := e.w.Write(b)
	return err
}

// scratch returns n bytes of *buf, the buffer of an Encoder or a Decoder,
// growing it if need be. A buffer larger than maxPooled is used once and
// not kept.
func scratch(buf *[]byte, n int) []byte {
	if cap(*buf) >= n {
		return (*buf)[:n]
	}
	b := make([]byte, n)
	if n <= maxPooled {
		*buf = b
	}
	return b
}

// A Decoder reads binary values from a stream in one byte order. It works
// out the byte order once and keeps one buffer for all its calls, so
// decoding a fixed-size value allocates nothing.
//
// A Decoder reads exactly the bytes of the values it decodes, as
// io.ReadFull does, and never reads ahead: other reads of the same stream
// can be mixed with its calls.
//
// Use NewDecoder to make one. A Decoder is not safe for concurrent use.
type Decoder struct {
	r     io.Reader
	order ByteOrder
	mode  mode
	buf   []byte
}

// NewDecoder returns a Decoder that reads from r using order.
func NewDecoder(r io.Reader, order ByteOrder) *Decoder {
	return &Decoder{r: r, order: order, mode: modeOf(order), buf: make([]byte, 64)}
}

// Decode reads Size(data) bytes and decodes them into data. It accepts the
// same data as [Read] and returns the same errors; like Read, it reads a
// slice of basic values into the slice's own memory.
func (d *Decoder) Decode(data any) error {
	k := decodeKind(data)
	if k == kindNone || isNil(data) {
		return d.decodeLarge(data, k)
	}
	b := d.buf[:kindSizes[k]]
	if k, err := d.r.Read(b); k < len(b) {
		if err := readRest(d.r, b, k, err); err != nil {
			return err
		}
	}
	switch p := dataWord(&data); d.mode {
	case modeNative:
		storeNative(p, b, k)
	case modeSwapped:
		storeSwapped(p, b, k)
	default:
		storeOther(p, b, k, d.order)
	}
	return nil
}

// decodeLarge is Decode for everything but pointers to basic values: nil
// pointers, slices (read in place) and the reflection path.
func (d *Decoder) decodeLarge(data any, k ptrKind) error {
	if k != kindNone {
		return nilPointerError("codec.Decoder.Decode", data)
	}
	if sliceSize(data) != 0 {
		return readInPlace(d.r, d.mode, d.order, data)
	}
	return d.decodeSlow(data)
}

// decodeSlow is Decode's reflection path, kept out of Decode so that the
// fast path stays small.
func (d *Decoder) decodeSlow(data any) error {
	t, pr := resolve(data, true)
	if pr != noProblem {
		return resolveError("codec.Decoder.Decode", data, pr, true)
	}
	b := scratch(&d.buf, t.size())
	if err := readFull(d.r, b); err != nil {
		return err
	}
	t.plan.decodeElems(b, t.ptr, t.count, d.mode, d.order)
	return nil
}
