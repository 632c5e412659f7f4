package codec_test

import (
	"bytes"
	"fmt"
	"math"

	"github.com/patchbot/patchbot/codec"
)

func ExampleWrite() {
	var buf bytes.Buffer
	if err := codec.Write(&buf, codec.LittleEndian, math.Pi); err != nil {
		fmt.Println("codec.Write failed:", err)
	}
	fmt.Printf("% x\n", buf.Bytes())
	// Output: 18 2d 44 54 fb 21 09 40
}

func ExampleWrite_multi() {
	var buf bytes.Buffer
	var data = []any{
		uint16(61374),
		int8(-54),
		uint8(254),
	}
	for _, v := range data {
		if err := codec.Write(&buf, codec.LittleEndian, v); err != nil {
			fmt.Println("codec.Write failed:", err)
		}
	}
	fmt.Printf("%x\n", buf.Bytes())
	// Output: beefcafe
}

func ExampleRead() {
	var pi float64
	b := []byte{0x18, 0x2d, 0x44, 0x54, 0xfb, 0x21, 0x09, 0x40}
	if err := codec.Read(bytes.NewReader(b), codec.LittleEndian, &pi); err != nil {
		fmt.Println("codec.Read failed:", err)
	}
	fmt.Print(pi)
	// Output: 3.141592653589793
}

func ExampleRead_struct() {
	b := []byte{0x18, 0x2d, 0x44, 0x54, 0xfb, 0x21, 0x09, 0x40, 0xff, 0x01, 0x02, 0x03, 0xbe, 0xef}
	var data struct {
		PI   float64
		Uate uint8
		Mine [3]byte
		Too  uint16
	}
	if err := codec.Read(bytes.NewReader(b), codec.LittleEndian, &data); err != nil {
		fmt.Println("codec.Read failed:", err)
	}
	fmt.Println(data.PI)
	fmt.Println(data.Uate)
	fmt.Printf("% x\n", data.Mine)
	fmt.Println(data.Too)
	// Output:
	// 3.141592653589793
	// 255
	// 01 02 03
	// 61374
}

func ExampleSize() {
	type header struct {
		Magic   [4]byte
		Version uint16
		_       [2]byte // padding, written as zeros
		Length  uint32
	}
	fmt.Println(codec.Size(header{}), codec.Size([]uint32{1, 2, 3}), codec.Size(map[string]int{}))
	// Output: 12 12 -1
}

func ExampleAppend() {
	buf := make([]byte, 0, 16)
	buf, _ = codec.Append(buf, codec.BigEndian, uint32(0xcafebabe))
	buf, _ = codec.Append(buf, codec.BigEndian, []int16{1, -1})
	fmt.Printf("% x\n", buf)
	// Output: ca fe ba be 00 01 ff ff
}

func ExampleEncoder() {
	var buf bytes.Buffer
	enc := codec.NewEncoder(&buf, codec.BigEndian)
	// Each Encode reuses the Encoder's buffer: no allocation.
	for _, v := range []uint16{1, 2, 0xffff} {
		if err := enc.Encode(v); err != nil {
			fmt.Println("Encode failed:", err)
		}
	}
	fmt.Printf("% x\n", buf.Bytes())
	// Output: 00 01 00 02 ff ff
}

func ExampleDecoder() {
	// A length-prefixed message: the Decoder reads exactly the length,
	// so the payload can be read from the same reader afterwards.
	r := bytes.NewReader([]byte{0x00, 0x05, 'h', 'e', 'l', 'l', 'o'})
	dec := codec.NewDecoder(r, codec.BigEndian)
	var n uint16
	if err := dec.Decode(&n); err != nil {
		fmt.Println("Decode failed:", err)
	}
	payload := make([]byte, n)
	r.Read(payload)
	fmt.Printf("%d %s\n", n, payload)
	// Output: 5 hello
}
