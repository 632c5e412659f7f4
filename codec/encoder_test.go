package codec_test

import (
	"bytes"
	"io"
	"reflect"
	"testing"
	"testing/iotest"

	"github.com/patchbot/patchbot/codec"
)

// A record is one step of a stream that mixes Encoder and Decoder calls
// with plain reads and writes of the same stream.
type record struct {
	value any    // a value for the Encoder, or nil for raw bytes
	raw   []byte // bytes written and read around the codec
	dst   func() any
}

var stream = []record{
	{value: uint16(0xbeef), dst: func() any { return new(uint16) }},
	{raw: []byte("hello")},
	{value: []int32{-1, 2, -3, 4, 5}, dst: func() any { return make([]int32, 5) }},
	{value: s, dst: func() any { return new(Struct) }},
	{raw: []byte{0xff}},
	{value: []bool{true, false, true}, dst: func() any { return make([]bool, 3) }},
	{value: Nested{C: 3 + 4i}, dst: func() any { return new(Nested) }},
	{value: MyUint32s{7, 8, 9}, dst: func() any { return make(MyUint32s, 3) }},
	{value: float64(2.5), dst: func() any { return new(float64) }},
	{raw: []byte("tail")},
}

// TestDecoderNoReadAhead writes a stream with an Encoder and plain writes,
// and reads it back with a Decoder and plain reads of the same reader: the
// Decoder must take exactly the bytes of each value.
func TestDecoderNoReadAhead(t *testing.T) {
	for _, order := range orders {
		var w bytes.Buffer
		enc := codec.NewEncoder(&w, order)
		for _, rec := range stream {
			if rec.value == nil {
				w.Write(rec.raw)
			} else if err := enc.Encode(rec.value); err != nil {
				t.Fatal(err)
			}
		}
		encoded := w.Bytes()

		readers := map[string]func() io.Reader{
			"bytes.Reader": func() io.Reader { return bytes.NewReader(encoded) },
			"OneByte":      func() io.Reader { return iotest.OneByteReader(bytes.NewReader(encoded)) },
			"Half":         func() io.Reader { return iotest.HalfReader(bytes.NewReader(encoded)) },
		}
		for name, newReader := range readers {
			r := newReader()
			dec := codec.NewDecoder(r, order)
			for i, rec := range stream {
				if rec.value == nil {
					got := make([]byte, len(rec.raw))
					if _, err := io.ReadFull(r, got); err != nil || !bytes.Equal(got, rec.raw) {
						t.Fatalf("%s %s: record %d: raw read %q, %v; want %q", orderName(order), name, i, got, err, rec.raw)
					}
					continue
				}
				dst := rec.dst()
				if err := dec.Decode(dst); err != nil {
					t.Fatalf("%s %s: record %d: %v", orderName(order), name, i, err)
				}
				got := reflect.ValueOf(dst)
				if got.Kind() == reflect.Pointer {
					got = got.Elem()
				}
				if !reflect.DeepEqual(got.Interface(), rec.value) {
					t.Errorf("%s %s: record %d = %v, want %v", orderName(order), name, i, got, rec.value)
				}
			}
			var x uint8
			if err := dec.Decode(&x); err != io.EOF {
				t.Errorf("%s %s: Decode at the end: %v, want io.EOF", orderName(order), name, err)
			}
		}
	}
}

// TestEncoderOneWritePerValue checks that an Encoder writes each value with
// a single Write call, as encoding/binary's Write does, so that writers
// that frame their writes (packets, messages) see one value per frame.
func TestEncoderOneWritePerValue(t *testing.T) {
	var w countingWriter
	enc := codec.NewEncoder(&w, codec.LittleEndian)
	n := 0
	for _, rec := range stream {
		if rec.value != nil {
			enc.Encode(rec.value)
			n++
		}
	}
	if w.writes != n {
		t.Errorf("%d values took %d writes", n, w.writes)
	}
}

// TestEncoderBufferGrows checks an Encoder and a Decoder with values larger
// than their initial buffers.
func TestEncoderBufferGrows(t *testing.T) {
	large := make([]Pair, 100)
	for i := range large {
		large[i] = Pair{A: uint8(i), B: uint32(i * 1000)}
	}
	var w bytes.Buffer
	enc := codec.NewEncoder(&w, codec.BigEndian)
	for range 2 {
		if err := enc.Encode(large); err != nil {
			t.Fatal(err)
		}
		if err := enc.Encode(uint8(1)); err != nil {
			t.Fatal(err)
		}
	}
	dec := codec.NewDecoder(&w, codec.BigEndian)
	for range 2 {
		got := make([]Pair, 100)
		var one uint8
		if err := dec.Decode(got); err != nil || !reflect.DeepEqual(got, large) {
			t.Fatalf("Decode = %v, %v", got[:3], err)
		}
		if err := dec.Decode(&one); err != nil || one != 1 {
			t.Fatalf("Decode = %v, %v", one, err)
		}
	}
}
