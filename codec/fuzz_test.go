package codec_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/patchbot/patchbot/codec"
)

// A fuzzShape makes a fresh decoding target; n is a length for slices.
type fuzzShape struct {
	name string
	make func(n int) any
	// readOnly marks targets encoding/binary panics on (unexported
	// fields): codec must return an error instead.
	readOnly bool
}

var fuzzShapes = []fuzzShape{
	{name: "*bool", make: func(int) any { return new(bool) }},
	{name: "*int8", make: func(int) any { return new(int8) }},
	{name: "*int16", make: func(int) any { return new(int16) }},
	{name: "*int32", make: func(int) any { return new(int32) }},
	{name: "*int64", make: func(int) any { return new(int64) }},
	{name: "*uint8", make: func(int) any { return new(uint8) }},
	{name: "*uint16", make: func(int) any { return new(uint16) }},
	{name: "*uint32", make: func(int) any { return new(uint32) }},
	{name: "*uint64", make: func(int) any { return new(uint64) }},
	{name: "*float32", make: func(int) any { return new(float32) }},
	{name: "*float64", make: func(int) any { return new(float64) }},
	{name: "*complex64", make: func(int) any { return new(complex64) }},
	{name: "*complex128", make: func(int) any { return new(complex128) }},
	{name: "[]bool", make: func(n int) any { return make([]bool, n) }},
	{name: "[]int8", make: func(n int) any { return make([]int8, n) }},
	{name: "[]int16", make: func(n int) any { return make([]int16, n) }},
	{name: "[]int32", make: func(n int) any { return make([]int32, n) }},
	{name: "[]int64", make: func(n int) any { return make([]int64, n) }},
	{name: "[]uint8", make: func(n int) any { return make([]uint8, n) }},
	{name: "[]uint16", make: func(n int) any { return make([]uint16, n) }},
	{name: "[]uint32", make: func(n int) any { return make([]uint32, n) }},
	{name: "[]uint64", make: func(n int) any { return make([]uint64, n) }},
	{name: "[]float32", make: func(n int) any { return make([]float32, n) }},
	{name: "[]float64", make: func(n int) any { return make([]float64, n) }},
	{name: "[]complex128", make: func(n int) any { return make([]complex128, n) }},
	{name: "*Struct", make: func(int) any { return new(Struct) }},
	{name: "*BlankFields", make: func(int) any { return new(BlankFields) }},
	{name: "*Nested", make: func(int) any { return new(Nested) }},
	{name: "*[3][2]int16", make: func(int) any { return new([3][2]int16) }},
	{name: "[]Pair", make: func(n int) any { return make([]Pair, n) }},
	{name: "[]Inner", make: func(n int) any { return make([]Inner, n) }},
	{name: "*MyUint16", make: func(int) any { return new(MyUint16) }},
	{name: "MyUint32s", make: func(n int) any { return make(MyUint32s, n) }},
	{name: "*[]int16", make: func(n int) any { s := make([]int16, n); return &s }},
	{name: "*UnexportedHarmless", make: func(int) any { return new(UnexportedHarmless) }},
	{name: "*UnexportedEmbedded", make: func(int) any { return new(UnexportedEmbedded) }},
	{name: "*Unexported", make: func(int) any { return new(Unexported) }, readOnly: true},
	{name: "[]UnexportedNested", make: func(n int) any { return make([]UnexportedNested, n) }, readOnly: true},
	{name: "nil *uint32", make: func(int) any { return (*uint32)(nil) }},
	{name: "nil *Struct", make: func(int) any { return (*Struct)(nil) }},
	{name: "uint32 value", make: func(int) any { return uint32(0) }},
	{name: "Pair value", make: func(int) any { return Pair{} }},
	{name: "*int", make: func(int) any { return new(int) }},
	{name: "[]string", make: func(n int) any { return make([]string, n) }},
}

// fuzzInput splits a fuzz input into a shape, a byte order, a slice
// length and the bytes to decode.
func fuzzInput(in []byte) (fuzzShape, binary.ByteOrder, int, []byte, bool) {
	if len(in) < 2 {
		return fuzzShape{}, nil, 0, nil, false
	}
	shape := fuzzShapes[int(in[0])%len(fuzzShapes)]
	order := orders[int(in[1])%len(orders)]
	n := int(in[1]/4) % 9
	return shape, order, n, in[2:], true
}

func fuzzSeeds(f *testing.F) {
	for i := range fuzzShapes {
		for j := range orders {
			f.Add(append([]byte{byte(i), byte(j + 4*3)}, big...))
			f.Add([]byte{byte(i), byte(j + 4*5), 1, 2, 3})
		}
	}
}

// FuzzDecode decodes random bytes into random shapes with codec and
// encoding/binary, through Read, Decode and Decoder, and compares what
// they decoded and the errors they returned. Where encoding/binary
// panics, codec must return an error.
func FuzzDecode(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		shape, order, n, body, ok := fuzzInput(in)
		if !ok {
			return
		}
		for _, e := range decodeEntries {
			sd, cd := shape.make(n), shape.make(n)
			s := call(func() result { return e.std(order, sd, body) })
			c := call(func() result { return e.codec(order, cd, body) })
			// See TestDecodeMatchesStdlib for why values are lenient.
			lenient := isNilPointer(cd) || shape.readOnly || isValue(cd)
			inPlace := isBasicSlice(cd) && e.name != "Decode"
			if msg := compare(s, c, e.stdFn, e.codecFn, lenient, inPlace); msg != "" {
				t.Errorf("%s %s(%s) of %x: %s", orderName(order), e.name, shape.name, body, msg)
			}
		}
	})
}

// FuzzRoundTrip decodes random bytes into random shapes with codec, then
// encodes the result with codec and encoding/binary through every encoder
// and requires the same bytes.
func FuzzRoundTrip(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		shape, order, n, body, ok := fuzzInput(in)
		if !ok {
			return
		}
		data := shape.make(n)
		if _, err := codec.Decode(body, order, data); err != nil {
			return
		}
		quietNaNs(data)
		for _, e := range encodeEntries {
			s := call(func() result { return e.std(order, data) })
			c := call(func() result { return e.codec(order, data) })
			if msg := compare(s, c, e.stdFn, e.codecFn, false, false); msg != "" {
				t.Errorf("%s %s(%s): %s", orderName(order), e.name, shape.name, msg)
			}
		}
		// Decoding what was encoded gives the same bytes again.
		out, err := codec.Append(nil, order, data)
		if err != nil {
			t.Fatal(err)
		}
		again := shape.make(n)
		if _, err := codec.Decode(out, order, again); err != nil {
			t.Fatal(err)
		}
		if out2, _ := codec.Append(nil, order, again); !bytes.Equal(out, out2) {
			t.Errorf("%s %s: round trip changed %x to %x", orderName(order), shape.name, out, out2)
		}
	})
}
