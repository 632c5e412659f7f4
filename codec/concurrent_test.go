package codec_test

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"

	"github.com/patchbot/patchbot/codec"
)

// TestConcurrent encodes and decodes many struct and array types from
// several goroutines at once, so that the race detector (scripts/test runs
// codec with -race) sees every shared cache in use: the plans, the data
// types, the buffer pool, and the 256 recent-type slots, which the 300
// types here must share, so that the slots also keep replacing each other.
func TestConcurrent(t *testing.T) {
	var types []reflect.Type
	for n := 1; n <= 150; n++ {
		types = append(types, reflect.ArrayOf(n, reflect.TypeFor[uint16]()), reflect.ArrayOf(n, reflect.TypeFor[Pair]()))
	}
	types = append(types, reflect.TypeFor[Struct](), reflect.TypeFor[Nested](), reflect.TypeFor[BlankFields]())

	// The data and encoding/binary's bytes for it, made beforehand.
	type item struct {
		data any // a pointer to a random value
		want [][]byte
	}
	r := rand.New(rand.NewPCG(11, 12))
	items := make([]item, len(types))
	for i, typ := range types {
		v := reflect.New(typ)
		fill(v.Elem(), r)
		items[i].data = v.Interface()
		for _, order := range orders {
			want, err := binary.Append(nil, order, v.Interface())
			if err != nil {
				t.Fatal(err)
			}
			items[i].want = append(items[i].want, want)
		}
	}

	const goroutines = 4
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			// Each goroutine starts at another type, so that they build
			// plans and fill slots at the same time.
			for k := range items {
				it := items[(k+g*len(items)/goroutines)%len(items)]
				typ := reflect.TypeOf(it.data).Elem()
				for j, order := range orders {
					var w countingWriter
					if err := codec.Write(&w, order, it.data); err != nil || !bytes.Equal(w.buf, it.want[j]) {
						t.Errorf("%s Write(%v) = %x, %v; want %x", orderName(order), typ, w.buf, err, it.want[j])
						return
					}
					back := reflect.New(typ).Interface()
					if err := codec.Read(bytes.NewReader(w.buf), order, back); err != nil {
						t.Errorf("%s Read(%v): %v", orderName(order), typ, err)
						return
					}
					if out, err := codec.Append(nil, order, back); err != nil || !bytes.Equal(out, it.want[j]) {
						t.Errorf("%s: %v read back encodes as %x, %v; want %x", orderName(order), typ, out, err, it.want[j])
						return
					}
				}
			}
		})
	}
	wg.Wait()
}
