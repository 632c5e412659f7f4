package codec

import (
	"math/bits"
	"unsafe"
)

// The fast path handles the basic fixed-size types — bool, int8…int64,
// uint8…uint64, float32 and float64 — as values, as pointers and as slices,
// with type switches and no reflection. Every encoding entry point asks
// fastSize, every decoding one decodeKind, then sliceSize, and each takes
// the reflection path (slow.go) only when neither knows the data.
//
// Go's encoding/binary has the same structure, and in 2014 its switch
// listed the unsigned integer types only as pointers and slices: unsigned
// values were still encoded correctly, through reflection, but several
// times more slowly than signed ones. The case lines below are where such a
// type would go missing.

// fastSize returns the encoded size of data if it is a fixed-size basic value
// or a pointer to one, and 0 otherwise: slices are sliceSize's, the rest the reflection path's.
func fastSize(data any) int {
	switch data.(type) {
	case bool, int8, uint8, *bool, *int8, *uint8:
		return 1
	case int16, uint16, *int16, *uint16:
		return 2
	case int32, uint32, *int32, *uint32:
		return 4
	case int64, uint64, *int64, *uint64:
		return 8
	case float32, *float32:
		return 4
	case float64, *float64:
		return 8
	}
	return 0
}

// A ptrKind says how a decoder stores a number into the memory that a
// pointer to a basic value points to: as a bool (0 or 1), or as 1, 2, 4 or
// 8 bytes of memory, whatever the type (a *int32, a *uint32 and a *float32
// are stored alike). The data word of the interface is that pointer, so a
// decoder needs nothing else to know about it.
type ptrKind uint8

const (
	kindNone ptrKind = iota // not a pointer to a basic value
	kindBool
	kind8
	kind16
	kind32
	kind64
)

// kindSizes holds the encoded size of a number of each kind.
var kindSizes = [...]int{kindNone: 0, kindBool: 1, kind8: 1, kind16: 2, kind32: 4, kind64: 8}

// decodeKind is fastSize for the decoders (Read, Decode, Decoder.Decode):
// it returns the kind of data if data is a pointer to a basic value, and
// kindNone otherwise. They store into data,
// so it must be a pointer or a slice: values are not listed, and one passed
// to a decoder takes the reflection path, which refuses it before reading
// anything. A switch of their own also keeps the decoders' hot path apart
// from the encoders' value cases, so a change to those cannot move
// decoding. Its answer says both how many bytes to read and how to store
// them, so decoding a basic value takes one type switch, not two.
func decodeKind(data any) ptrKind {
	switch data.(type) {
	case *bool:
		return kindBool
	case *int8, *uint8:
		return kind8
	case *int16, *uint16:
		return kind16
	case *int32, *uint32, *float32:
		return kind32
	case *int64, *uint64, *float64:
		return kind64
	}
	return kindNone
}

// sliceSize returns the encoded size of data if it is a slice of a basic
// fixed-size type, and 0 otherwise.
func sliceSize(data any) int {
	switch data := data.(type) {
	case []bool:
		return len(data)
	case []int8:
		return len(data)
	case []uint8:
		return len(data)
	case []int16:
		return 2 * len(data)
	case []uint16:
		return 2 * len(data)
	case []int32:
		return 4 * len(data)
	case []uint32:
		return 4 * len(data)
	case []int64:
		return 8 * len(data)
	case []uint64:
		return 8 * len(data)
	case []float32:
		return 4 * len(data)
	case []float64:
		return 8 * len(data)
	}
	return 0
}

// encodeNative encodes in the machine's order the n-byte number at p, once
// fastSize has given n: the data word of a basic value points to its
// memory (its box) and that of a pointer to one is the pointer, so the
// encoders need nothing else, and encoding is one load and one store. A
// bool's memory is 0 or 1, its encoding exactly. The encoders call
// encodeNative, encodeSwapped or encodeOther by their mode; the first two
// are inlined, since a function call is a measurable share of encoding one
// small value.
func encodeNative(b []byte, p unsafe.Pointer, n int) {
	switch n {
	case 1:
		b[0] = *(*byte)(p)
	case 2:
		native.PutUint16(b, *(*uint16)(p))
	case 4:
		native.PutUint32(b, *(*uint32)(p))
	case 8:
		native.PutUint64(b, *(*uint64)(p))
	}
}

// encodeSwapped is encodeNative for the reverse of the machine's order.
func encodeSwapped(b []byte, p unsafe.Pointer, n int) {
	switch n {
	case 1:
		b[0] = *(*byte)(p)
	case 2:
		native.PutUint16(b, bits.ReverseBytes16(*(*uint16)(p)))
	case 4:
		native.PutUint32(b, bits.ReverseBytes32(*(*uint32)(p)))
	case 8:
		native.PutUint64(b, bits.ReverseBytes64(*(*uint64)(p)))
	}
}

// encodeOther is encodeNative for a ByteOrder codec does not know: the
// number goes through the order's methods, as in encoding/binary.
func encodeOther(b []byte, p unsafe.Pointer, n int, order ByteOrder) {
	switch n {
	case 1:
		b[0] = *(*byte)(p) // one byte has no order
	case 2:
		order.PutUint16(b, *(*uint16)(p))
	case 4:
		order.PutUint32(b, *(*uint32)(p))
	case 8:
		order.PutUint64(b, *(*uint64)(p))
	}
}

// encodeSlice encodes data, a slice of the fast path, into b, which holds
// exactly sliceSize(data) bytes. Any other data is a mistake of its
// caller, and would leave b unwritten: it panics.
func encodeSlice(b []byte, m mode, order ByteOrder, data any) {
	switch data := data.(type) {
	case []bool:
		// A Go bool's memory is 0 or 1: its encoding exactly.
		copy(b, bytesOf(data))
	case []int8:
		copy(b, bytesOf(data))
	case []uint8:
		copy(b, data)
	case []int16:
		put16s(b, castSlice[uint16](data), m, order)
	case []uint16:
		put16s(b, data, m, order)
	case []int32:
		put32s(b, castSlice[uint32](data), m, order)
	case []uint32:
		put32s(b, data, m, order)
	case []float32:
		put32s(b, castSlice[uint32](data), m, order)
	case []int64:
		put64s(b, castSlice[uint64](data), m, order)
	case []uint64:
		put64s(b, data, m, order)
	case []float64:
		put64s(b, castSlice[uint64](data), m, order)
	default:
		panic("codec: internal error: encodeSlice of " + typeString(data))
	}
}

// storeNative stores b, a number of kind k encoded in the machine's
// order, into the memory at p. The decoders call it, storeSwapped or
// storeOther by their mode; the first two are inlined, since a function
// call is a measurable share of decoding one small value.
func storeNative(p unsafe.Pointer, b []byte, k ptrKind) {
	switch k {
	case kindBool:
		*(*bool)(p) = b[0] != 0
	case kind8:
		*(*uint8)(p) = b[0]
	case kind16:
		*(*uint16)(p) = native.Uint16(b)
	case kind32:
		*(*uint32)(p) = native.Uint32(b)
	case kind64:
		*(*uint64)(p) = native.Uint64(b)
	}
}

// storeSwapped is storeNative for the reverse of the machine's order.
func storeSwapped(p unsafe.Pointer, b []byte, k ptrKind) {
	switch k {
	case kindBool:
		*(*bool)(p) = b[0] != 0
	case kind8:
		*(*uint8)(p) = b[0]
	case kind16:
		*(*uint16)(p) = bits.ReverseBytes16(native.Uint16(b))
	case kind32:
		*(*uint32)(p) = bits.ReverseBytes32(native.Uint32(b))
	case kind64:
		*(*uint64)(p) = bits.ReverseBytes64(native.Uint64(b))
	}
}

// storeOther is storeNative for a ByteOrder codec does not know: the
// number goes through the order's methods, as in encoding/binary.
func storeOther(p unsafe.Pointer, b []byte, k ptrKind, order ByteOrder) {
	switch k {
	case kind16:
		*(*uint16)(p) = order.Uint16(b)
	case kind32:
		*(*uint32)(p) = order.Uint32(b)
	case kind64:
		*(*uint64)(p) = order.Uint64(b)
	default:
		storeNative(p, b, k) // one byte has no order
	}
}

// decodeSlice decodes b, which holds exactly sliceSize(data) bytes, into
// data, a slice of the fast path. It reports false if data is not one.
func decodeSlice(b []byte, m mode, order ByteOrder, data any) bool {
	switch data := data.(type) {
	case []bool:
		getBools(data, b)
	case []int8:
		copy(bytesOf(data), b)
	case []uint8:
		copy(data, b)
	case []int16:
		get16s(castSlice[uint16](data), b, m, order)
	case []uint16:
		get16s(data, b, m, order)
	case []int32:
		get32s(castSlice[uint32](data), b, m, order)
	case []uint32:
		get32s(data, b, m, order)
	case []float32:
		get32s(castSlice[uint32](data), b, m, order)
	case []int64:
		get64s(castSlice[uint64](data), b, m, order)
	case []uint64:
		get64s(data, b, m, order)
	case []float64:
		get64s(castSlice[uint64](data), b, m, order)
	default:
		return false
	}
	return true
}

// sliceBytes returns the memory of data and the size of its elements if
// data is one of the slice types of the fast path, and 0 otherwise.
func sliceBytes(data any) ([]byte, int) {
	switch data := data.(type) {
	case []bool:
		return bytesOf(data), 1
	case []int8:
		return bytesOf(data), 1
	case []uint8:
		return data, 1
	case []int16:
		return bytesOf(data), 2
	case []uint16:
		return bytesOf(data), 2
	case []int32:
		return bytesOf(data), 4
	case []uint32:
		return bytesOf(data), 4
	case []float32:
		return bytesOf(data), 4
	case []int64:
		return bytesOf(data), 8
	case []uint64:
		return bytesOf(data), 8
	case []float64:
		return bytesOf(data), 8
	}
	return nil, 0
}

// rawBytes returns the memory of data if data is a slice whose encoding in
// mode m is that memory: a slice of one-byte elements in any order, or of
// wider elements in the machine's order. Write hands such memory to the
// writer directly, with no copy.
func rawBytes(data any, m mode) ([]byte, bool) {
	b, width := sliceBytes(data)
	return b, width == 1 || width > 1 && m == modeNative
}

// decodeInPlace turns data, a slice of the fast path whose memory has just
// been filled with its encoding, into its values: byte-swapping elements,
// or calling order's methods on them, or making bools 0 or 1. Read and
// Decoder read slices into their own memory this way, which saves a copy
// and a temporary buffer as large as the slice.
func decodeInPlace(data any, m mode, order ByteOrder) {
	switch data := data.(type) {
	case []bool:
		b := bytesOf(data)
		for i, x := range b {
			b[i] = boolByte(x != 0)
		}
	case []int16:
		fix16s(castSlice[uint16](data), m, order)
	case []uint16:
		fix16s(data, m, order)
	case []int32:
		fix32s(castSlice[uint32](data), m, order)
	case []uint32:
		fix32s(data, m, order)
	case []float32:
		fix32s(castSlice[uint32](data), m, order)
	case []int64:
		fix64s(castSlice[uint64](data), m, order)
	case []uint64:
		fix64s(data, m, order)
	case []float64:
		fix64s(castSlice[uint64](data), m, order)
	}
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}
