package codec

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// A mode says how to apply a ByteOrder. It is worked out once per call (or
// once per Encoder or Decoder) so that the loops below need not call the
// ByteOrder's methods through an interface for every element.
type mode uint8

const (
	// modeOther is any ByteOrder codec does not know: call its methods.
	modeOther mode = iota
	// modeNative is the machine's own order: the encoding of a value is
	// its memory, so slices are copied whole.
	modeNative
	// modeSwapped is the reverse of the machine's order: each element's
	// bytes are reversed, which compiles to a byte-swap instruction.
	modeSwapped
)

// littleMode and bigMode are the modes of LittleEndian and BigEndian on
// this machine.
var littleMode, bigMode = func() (mode, mode) {
	if binary.NativeEndian.Uint16([]byte{1, 0}) == 1 {
		return modeNative, modeSwapped
	}
	return modeSwapped, modeNative
}()

// modeOf returns the mode of order.
func modeOf(order ByteOrder) mode {
	switch {
	case is(order, binary.BigEndian):
		return bigMode
	case is(order, binary.LittleEndian):
		return littleMode
	case is(order, binary.NativeEndian):
		return modeNative
	}
	return modeOther
}

// is reports whether order's dynamic type is T, the type of one of
// encoding/binary's byte orders (whose types are unexported, hence the
// example value). A type assertion compares one word; == between
// interfaces would call into the runtime.
func is[T ByteOrder](order ByteOrder, _ T) bool {
	_, ok := order.(T)
	return ok
}

// native is the machine's byte order as a concrete type, so that its
// methods are inlined into single loads and stores.
var native = binary.NativeEndian

// bytesOf returns the memory of s as bytes.
func bytesOf[T any](s []T) []byte {
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))
}

// castSlice returns s viewed as a slice of To, which must have the same
// size as From. It lets one loop serve int32, uint32 and float32 alike.
func castSlice[To, From any](s []From) []To {
	return unsafe.Slice((*To)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// The loops below slice b with full expressions, b[4*i:4*i+4] rather than
// b[4*i:]: the compiler then turns each step into one load, byte swap and
// store with a single bounds check, which makes them nearly twice as fast.

// put16s encodes s into b, which must hold 2*len(s) bytes.
func put16s(b []byte, s []uint16, m mode, order ByteOrder) {
	b = b[:2*len(s)]
	switch m {
	case modeNative:
		copy(b, bytesOf(s))
	case modeSwapped:
		for i, v := range s {
			native.PutUint16(b[2*i:2*i+2], bits.ReverseBytes16(v))
		}
	default:
		for i, v := range s {
			order.PutUint16(b[2*i:2*i+2], v)
		}
	}
}

// put32s encodes s into b, which must hold 4*len(s) bytes.
func put32s(b []byte, s []uint32, m mode, order ByteOrder) {
	b = b[:4*len(s)]
	switch m {
	case modeNative:
		copy(b, bytesOf(s))
	case modeSwapped:
		for i, v := range s {
			native.PutUint32(b[4*i:4*i+4], bits.ReverseBytes32(v))
		}
	default:
		for i, v := range s {
			order.PutUint32(b[4*i:4*i+4], v)
		}
	}
}

// put64s encodes s into b, which must hold 8*len(s) bytes.
func put64s(b []byte, s []uint64, m mode, order ByteOrder) {
	b = b[:8*len(s)]
	switch m {
	case modeNative:
		copy(b, bytesOf(s))
	case modeSwapped:
		for i, v := range s {
			native.PutUint64(b[8*i:8*i+8], bits.ReverseBytes64(v))
		}
	default:
		for i, v := range s {
			order.PutUint64(b[8*i:8*i+8], v)
		}
	}
}

// get16s decodes b, which must hold 2*len(s) bytes, into s.
func get16s(s []uint16, b []byte, m mode, order ByteOrder) {
	b = b[:2*len(s)]
	switch m {
	case modeNative:
		copy(bytesOf(s), b)
	case modeSwapped:
		for i := range s {
			s[i] = bits.ReverseBytes16(native.Uint16(b[2*i : 2*i+2]))
		}
	default:
		for i := range s {
			s[i] = order.Uint16(b[2*i : 2*i+2])
		}
	}
}

// get32s decodes b, which must hold 4*len(s) bytes, into s.
func get32s(s []uint32, b []byte, m mode, order ByteOrder) {
	b = b[:4*len(s)]
	switch m {
	case modeNative:
		copy(bytesOf(s), b)
	case modeSwapped:
		for i := range s {
			s[i] = bits.ReverseBytes32(native.Uint32(b[4*i : 4*i+4]))
		}
	default:
		for i := range s {
			s[i] = order.Uint32(b[4*i : 4*i+4])
		}
	}
}

// get64s decodes b, which must hold 8*len(s) bytes, into s.
func get64s(s []uint64, b []byte, m mode, order ByteOrder) {
	b = b[:8*len(s)]
	switch m {
	case modeNative:
		copy(bytesOf(s), b)
	case modeSwapped:
		for i := range s {
			s[i] = bits.ReverseBytes64(native.Uint64(b[8*i : 8*i+8]))
		}
	default:
		for i := range s {
			s[i] = order.Uint64(b[8*i : 8*i+8])
		}
	}
}

// fix16s turns each element of s, which holds its own encoding in mode m,
// into its value.
func fix16s(s []uint16, m mode, order ByteOrder) {
	switch m {
	case modeSwapped:
		for i, v := range s {
			s[i] = bits.ReverseBytes16(v)
		}
	case modeOther:
		for i := range s {
			s[i] = order.Uint16(bytesOf(s[i : i+1]))
		}
	}
}

// fix32s turns each element of s, which holds its own encoding in mode m,
// into its value.
func fix32s(s []uint32, m mode, order ByteOrder) {
	switch m {
	case modeSwapped:
		for i, v := range s {
			s[i] = bits.ReverseBytes32(v)
		}
	case modeOther:
		for i := range s {
			s[i] = order.Uint32(bytesOf(s[i : i+1]))
		}
	}
}

// fix64s turns each element of s, which holds its own encoding in mode m,
// into its value.
func fix64s(s []uint64, m mode, order ByteOrder) {
	switch m {
	case modeSwapped:
		for i, v := range s {
			s[i] = bits.ReverseBytes64(v)
		}
	case modeOther:
		for i := range s {
			s[i] = order.Uint64(bytesOf(s[i : i+1]))
		}
	}
}

// getBools decodes b into s: any non-zero byte is true. Bools cannot be
// copied as memory on decode, since a Go bool must hold 0 or 1.
func getBools(s []bool, b []byte) {
	b = b[:len(s)]
	for i, x := range b {
		s[i] = x != 0
	}
}
