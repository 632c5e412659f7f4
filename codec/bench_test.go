package codec_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"reflect"
	"testing"
	"unsafe"

	"github.com/patchbot/patchbot/codec"
)

// The benchmarks run codec and encoding/binary side by side, as
// sub-benchmarks impl=stdlib and impl=codec (and impl=copy where a plain
// copy of the same bytes is the reference), so that one pass gives
// interleaved figures. -count N would run each sub-benchmark N times in a
// row, so repeat passes of -count 1 instead (docs/design/codec.md has the ratio
// script):
//
//	go test -c -o /tmp/codec.test ./codec
//	(cd codec && for i in $(seq 20); do /tmp/codec.test -test.run '^$' -test.bench . -test.benchtime 500ms; done) > /tmp/x.txt
//	go tool benchstat -col /impl /tmp/x.txt
//
// ReadInts, WriteInts, AppendInts, ReadStruct, WriteStruct and the slice
// benchmarks are shaped like encoding/binary's own. Calls are written out
// for each package rather than passed as function values: a call through
// a function value would box its argument on the heap for both, hiding
// the cost that codec avoids.

// byteSliceReader is encoding/binary's benchmark reader: the plainest
// io.Reader there is.
type byteSliceReader struct {
	remain []byte
}

func (br *byteSliceReader) Read(p []byte) (int, error) {
	n := copy(p, br.remain)
	br.remain = br.remain[n:]
	return n, nil
}

// intsWant is what ReadInts decodes: the integer fields of s.
func intsWant() Struct {
	return Struct{
		Int8: s.Int8, Int16: s.Int16, Int32: s.Int32, Int64: s.Int64,
		Uint8: s.Uint8, Uint16: s.Uint16, Uint32: s.Uint32, Uint64: s.Uint64,
	}
}

func BenchmarkReadInts(b *testing.B) {
	b.Run("impl=stdlib", func(b *testing.B) {
		var ls Struct
		bsr := &byteSliceReader{}
		var r io.Reader = bsr
		b.SetBytes(2 * (1 + 2 + 4 + 8))
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			bsr.remain = big
			binary.Read(r, binary.BigEndian, &ls.Int8)
			binary.Read(r, binary.BigEndian, &ls.Int16)
			binary.Read(r, binary.BigEndian, &ls.Int32)
			binary.Read(r, binary.BigEndian, &ls.Int64)
			binary.Read(r, binary.BigEndian, &ls.Uint8)
			binary.Read(r, binary.BigEndian, &ls.Uint16)
			binary.Read(r, binary.BigEndian, &ls.Uint32)
			binary.Read(r, binary.BigEndian, &ls.Uint64)
		}
		b.StopTimer()
		if b.N > 0 && ls != intsWant() {
			b.Fatalf("got %+v, want %+v", ls, intsWant())
		}
	})
	b.Run("impl=codec", func(b *testing.B) {
		var ls Struct
		bsr := &byteSliceReader{}
		var r io.Reader = bsr
		b.SetBytes(2 * (1 + 2 + 4 + 8))
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			bsr.remain = big
			codec.Read(r, codec.BigEndian, &ls.Int8)
			codec.Read(r, codec.BigEndian, &ls.Int16)
			codec.Read(r, codec.BigEndian, &ls.Int32)
			codec.Read(r, codec.BigEndian, &ls.Int64)
			codec.Read(r, codec.BigEndian, &ls.Uint8)
			codec.Read(r, codec.BigEndian, &ls.Uint16)
			codec.Read(r, codec.BigEndian, &ls.Uint32)
			codec.Read(r, codec.BigEndian, &ls.Uint64)
		}
		b.StopTimer()
		if b.N > 0 && ls != intsWant() {
			b.Fatalf("got %+v, want %+v", ls, intsWant())
		}
	})
}

func BenchmarkDecoderReadInts(b *testing.B) {
	// The stdlib side is binary.Read, which has no Decoder.
	b.Run("impl=stdlib", func(b *testing.B) {
		var ls Struct
		bsr := &byteSliceReader{}
		var r io.Reader = bsr
		b.SetBytes(2 * (1 + 2 + 4 + 8))
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			bsr.remain = big
			binary.Read(r, binary.BigEndian, &ls.Int8)
			binary.Read(r, binary.BigEndian, &ls.Int16)
			binary.Read(r, binary.BigEndian, &ls.Int32)
			binary.Read(r, binary.BigEndian, &ls.Int64)
			binary.Read(r, binary.BigEndian, &ls.Uint8)
			binary.Read(r, binary.BigEndian, &ls.Uint16)
			binary.Read(r, binary.BigEndian, &ls.Uint32)
			binary.Read(r, binary.BigEndian, &ls.Uint64)
		}
		b.StopTimer()
		if b.N > 0 && ls != intsWant() {
			b.Fatalf("got %+v, want %+v", ls, intsWant())
		}
	})
	b.Run("impl=codec", func(b *testing.B) {
		var ls Struct
		bsr := &byteSliceReader{}
		dec := codec.NewDecoder(bsr, codec.BigEndian)
		b.SetBytes(2 * (1 + 2 + 4 + 8))
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			bsr.remain = big
			dec.Decode(&ls.Int8)
			dec.Decode(&ls.Int16)
			dec.Decode(&ls.Int32)
			dec.Decode(&ls.Int64)
			dec.Decode(&ls.Uint8)
			dec.Decode(&ls.Uint16)
			dec.Decode(&ls.Uint32)
			dec.Decode(&ls.Uint64)
		}
		b.StopTimer()
		if b.N > 0 && ls != intsWant() {
			b.Fatalf("got %+v, want %+v", ls, intsWant())
		}
	})
}

func BenchmarkWriteInts(b *testing.B) {
	b.Run("impl=stdlib", func(b *testing.B) {
		buf := new(bytes.Buffer)
		var w io.Writer = buf
		b.SetBytes(2 * (1 + 2 + 4 + 8))
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			buf.Reset()
			binary.Write(w, binary.BigEndian, s.Int8)
			binary.Write(w, binary.BigEndian, s.Int16)
			binary.Write(w, binary.BigEndian, s.Int32)
			binary.Write(w, binary.BigEndian, s.Int64)
			binary.Write(w, binary.BigEndian, s.Uint8)
			binary.Write(w, binary.BigEndian, s.Uint16)
			binary.Write(w, binary.BigEndian, s.Uint32)
			binary.Write(w, binary.BigEndian, s.Uint64)
		}
		b.StopTimer()
		if b.N > 0 && !bytes.Equal(buf.Bytes(), big[:30]) {
			b.Fatalf("first half doesn't match: %x %x", buf.Bytes(), big[:30])
		}
	})
	b.Run("impl=codec", func(b *testing.B) {
		buf := new(bytes.Buffer)
		var w io.Writer = buf
		b.SetBytes(2 * (1 + 2 + 4 + 8))
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			buf.Reset()
			codec.Write(w, codec.BigEndian, s.Int8)
			codec.Write(w, codec.BigEndian, s.Int16)
			codec.Write(w, codec.BigEndian, s.Int32)
			codec.Write(w, codec.BigEndian, s.Int64)
			codec.Write(w, codec.BigEndian, s.Uint8)
			codec.Write(w, codec.BigEndian, s.Uint16)
			codec.Write(w, codec.BigEndian, s.Uint32)
			codec.Write(w, codec.BigEndian, s.Uint64)
		}
		b.StopTimer()
		if b.N > 0 && !bytes.Equal(buf.Bytes(), big[:30]) {
			b.Fatalf("first half doesn't match: %x %x", buf.Bytes(), big[:30])
		}
	})
}

func BenchmarkEncoderWriteInts(b *testing.B) {
	// The stdlib side is binary.Write, which has no Encoder.
	b.Run("impl=stdlib", func(b *testing.B) {
		buf := new(bytes.Buffer)
		var w io.Writer = buf
		b.SetBytes(2 * (1 + 2 + 4 + 8))
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			buf.Reset()
			binary.Write(w, binary.BigEndian, s.Int8)
			binary.Write(w, binary.BigEndian, s.Int16)
			binary.Write(w, binary.BigEndian, s.Int32)
			binary.Write(w, binary.BigEndian, s.Int64)
			binary.Write(w, binary.BigEndian, s.Uint8)
			binary.Write(w, binary.BigEndian, s.Uint16)
			binary.Write(w, binary.BigEndian, s.Uint32)
			binary.Write(w, binary.BigEndian, s.Uint64)
		}
		b.StopTimer()
		if b.N > 0 && !bytes.Equal(buf.Bytes(), big[:30]) {
			b.Fatalf("first half doesn't match: %x %x", buf.Bytes(), big[:30])
		}
	})
	b.Run("impl=codec", func(b *testing.B) {
		buf := new(bytes.Buffer)
		enc := codec.NewEncoder(buf, codec.BigEndian)
		b.SetBytes(2 * (1 + 2 + 4 + 8))
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			buf.Reset()
			enc.Encode(s.Int8)
			enc.Encode(s.Int16)
			enc.Encode(s.Int32)
			enc.Encode(s.Int64)
			enc.Encode(s.Uint8)
			enc.Encode(s.Uint16)
			enc.Encode(s.Uint32)
			enc.Encode(s.Uint64)
		}
		b.StopTimer()
		if b.N > 0 && !bytes.Equal(buf.Bytes(), big[:30]) {
			b.Fatalf("first half doesn't match: %x %x", buf.Bytes(), big[:30])
		}
	})
}

func BenchmarkAppendInts(b *testing.B) {
	b.Run("impl=stdlib", func(b *testing.B) {
		buf := make([]byte, 0, 256)
		b.SetBytes(2 * (1 + 2 + 4 + 8))
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			buf = buf[:0]
			buf, _ = binary.Append(buf, binary.BigEndian, s.Int8)
			buf, _ = binary.Append(buf, binary.BigEndian, s.Int16)
			buf, _ = binary.Append(buf, binary.BigEndian, s.Int32)
			buf, _ = binary.Append(buf, binary.BigEndian, s.Int64)
			buf, _ = binary.Append(buf, binary.BigEndian, s.Uint8)
			buf, _ = binary.Append(buf, binary.BigEndian, s.Uint16)
			buf, _ = binary.Append(buf, binary.BigEndian, s.Uint32)
			buf, _ = binary.Append(buf, binary.BigEndian, s.Uint64)
		}
		b.StopTimer()
		if b.N > 0 && !bytes.Equal(buf, big[:30]) {
			b.Fatalf("first half doesn't match: %x %x", buf, big[:30])
		}
	})
	b.Run("impl=codec", func(b *testing.B) {
		buf := make([]byte, 0, 256)
		b.SetBytes(2 * (1 + 2 + 4 + 8))
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			buf = buf[:0]
			buf, _ = codec.Append(buf, codec.BigEndian, s.Int8)
			buf, _ = codec.Append(buf, codec.BigEndian, s.Int16)
			buf, _ = codec.Append(buf, codec.BigEndian, s.Int32)
			buf, _ = codec.Append(buf, codec.BigEndian, s.Int64)
			buf, _ = codec.Append(buf, codec.BigEndian, s.Uint8)
			buf, _ = codec.Append(buf, codec.BigEndian, s.Uint16)
			buf, _ = codec.Append(buf, codec.BigEndian, s.Uint32)
			buf, _ = codec.Append(buf, codec.BigEndian, s.Uint64)
		}
		b.StopTimer()
		if b.N > 0 && !bytes.Equal(buf, big[:30]) {
			b.Fatalf("first half doesn't match: %x %x", buf, big[:30])
		}
	})
}

// BenchmarkReadOne and BenchmarkWriteOne send one value per call through a
// reader and a writer that codec does not recognise (no AvailableBuffer),
// so that codec's Read and Write must bring their own buffer, as
// encoding/binary's always do.
func BenchmarkReadOne(b *testing.B) {
	b.Run("impl=stdlib", func(b *testing.B) {
		var x uint64
		bsr := &byteSliceReader{}
		var r io.Reader = bsr
		b.SetBytes(8)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			bsr.remain = big[7:]
			binary.Read(r, binary.BigEndian, &x)
		}
		if b.N > 0 && x != uint64(s.Int64) {
			b.Fatalf("got %#x, want %#x", x, uint64(s.Int64))
		}
	})
	b.Run("impl=codec", func(b *testing.B) {
		var x uint64
		bsr := &byteSliceReader{}
		var r io.Reader = bsr
		b.SetBytes(8)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			bsr.remain = big[7:]
			codec.Read(r, codec.BigEndian, &x)
		}
		if b.N > 0 && x != uint64(s.Int64) {
			b.Fatalf("got %#x, want %#x", x, uint64(s.Int64))
		}
	})
}

func BenchmarkWriteOne(b *testing.B) {
	b.Run("impl=stdlib", func(b *testing.B) {
		w := io.Discard
		b.SetBytes(8)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			binary.Write(w, binary.BigEndian, s.Uint64)
		}
	})
	b.Run("impl=codec", func(b *testing.B) {
		w := io.Discard
		b.SetBytes(8)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			codec.Write(w, codec.BigEndian, s.Uint64)
		}
	})
}

func BenchmarkReadStruct(b *testing.B) {
	size := binary.Size(&s)
	b.Run("impl=stdlib", func(b *testing.B) {
		bsr := &byteSliceReader{}
		var t Struct
		b.SetBytes(int64(size))
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			bsr.remain = big
			binary.Read(bsr, binary.BigEndian, &t)
		}
		b.StopTimer()
		if b.N > 0 && !reflect.DeepEqual(s, t) {
			b.Fatalf("struct doesn't match:\ngot  %v;\nwant %v", t, s)
		}
	})
	b.Run("impl=codec", func(b *testing.B) {
		bsr := &byteSliceReader{}
		var t Struct
		b.SetBytes(int64(size))
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			bsr.remain = big
			codec.Read(bsr, codec.BigEndian, &t)
		}
		b.StopTimer()
		if b.N > 0 && !reflect.DeepEqual(s, t) {
			b.Fatalf("struct doesn't match:\ngot  %v;\nwant %v", t, s)
		}
	})
}

func BenchmarkWriteStruct(b *testing.B) {
	size := binary.Size(&s)
	b.Run("impl=stdlib", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			binary.Write(io.Discard, binary.BigEndian, &s)
		}
	})
	b.Run("impl=codec", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			codec.Write(io.Discard, codec.BigEndian, &s)
		}
	})
}

// sliceOrders are the orders of the slice benchmarks: the machine's own,
// where codec copies memory and a plain copy of the same bytes is the
// reference, and big endian, which is swapped on most machines and is
// compared with encoding/binary. (encoding/binary calls the order's
// methods for every element whatever the order, so its speed does not
// depend on it; leaving out its native-order run keeps the whole suite
// near 30 seconds.)
var sliceOrders = []struct {
	name  string
	order binary.ByteOrder
}{
	{"order=native", binary.NativeEndian},
	{"order=big", binary.BigEndian},
}

func BenchmarkReadSlice1000Uint32s(b *testing.B) {
	for _, o := range sliceOrders {
		b.Run(o.name, func(b *testing.B) {
			slice := make([]uint32, 1000)
			buf := make([]byte, len(slice)*4)
			for i := range buf {
				buf[i] = byte(i)
			}
			native := o.order == binary.NativeEndian
			if !native {
				b.Run("impl=stdlib", func(b *testing.B) {
					bsr := &byteSliceReader{}
					b.SetBytes(int64(len(buf)))
					b.ReportAllocs()
					for i := 0; i < b.N; i++ {
						bsr.remain = buf
						binary.Read(bsr, o.order, slice)
					}
				})
			}
			b.Run("impl=codec", func(b *testing.B) {
				bsr := &byteSliceReader{}
				b.SetBytes(int64(len(buf)))
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					bsr.remain = buf
					codec.Read(bsr, o.order, slice)
				}
			})
			if !native {
				return
			}
			b.Run("impl=copy", func(b *testing.B) {
				dst := unsafe.Slice((*byte)(unsafe.Pointer(&slice[0])), len(slice)*4)
				b.SetBytes(int64(len(buf)))
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					copy(dst, buf)
				}
			})
		})
	}
}

func BenchmarkWriteSlice1000Uint32s(b *testing.B) {
	for _, o := range sliceOrders {
		b.Run(o.name, func(b *testing.B) {
			slice := make([]uint32, 1000)
			for i := range slice {
				slice[i] = uint32(i) * 0x01020304
			}
			native := o.order == binary.NativeEndian
			if !native {
				b.Run("impl=stdlib", func(b *testing.B) {
					buf := new(bytes.Buffer)
					var w io.Writer = buf
					b.SetBytes(4 * 1000)
					b.ReportAllocs()
					for i := 0; i < b.N; i++ {
						buf.Reset()
						binary.Write(w, o.order, slice)
					}
				})
			}
			b.Run("impl=codec", func(b *testing.B) {
				buf := new(bytes.Buffer)
				var w io.Writer = buf
				b.SetBytes(4 * 1000)
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					buf.Reset()
					codec.Write(w, o.order, slice)
				}
			})
			if !native {
				return
			}
			b.Run("impl=copy", func(b *testing.B) {
				src := unsafe.Slice((*byte)(unsafe.Pointer(&slice[0])), len(slice)*4)
				dst := make([]byte, len(src))
				b.SetBytes(4 * 1000)
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					copy(dst, src)
				}
			})
		})
	}
}

func BenchmarkSize(b *testing.B) {
	size := binary.Size(&s)
	b.Run("impl=stdlib", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if binary.Size(&s) != size {
				b.Fatal("wrong size")
			}
		}
	})
	b.Run("impl=codec", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if codec.Size(&s) != size {
				b.Fatal("wrong size")
			}
		}
	})
}
