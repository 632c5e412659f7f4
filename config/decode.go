package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// A validator checks a value after it has been decoded. Types in this package
// implement it to reject values that are well-formed YAML but wrong for
// patchbot (a count of zero, a threshold of 150%).
type validator interface {
	validate() error
}

// A resetter is a section some of whose defaults do not survive some of a
// file's keys: it resets them, given the section's mapping in the file,
// before the file's keys are decoded onto it.
type resetter interface {
	reset(n *yaml.Node)
}

// A keyError is a validation error about one sub-key of the value being
// validated; the decoder reports it at that sub-key's line.
type keyError struct {
	key string
	err error
}

func (e *keyError) Error() string { return e.key + ": " + e.err.Error() }

// overlay decodes the YAML document data onto dst, a pointer to a struct.
//
// It walks the document's nodes beside dst's type instead of handing the
// whole document to yaml.Unmarshal, so that every error (an unknown key, a
// value of the wrong type, a value that fails validation) carries its line
// and its full dotted key.
func overlay(dst any, file string, data []byte) error {
	if err := checkUTF8(file, data); err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil // empty file
		}
		line, msg := yamlLine(err)
		return &Error{File: file, Line: line, Err: errors.New(msg)}
	}
	// A second document would be ignored by a single Unmarshal: the
	// settings in it would silently not apply. Only empty ones (a '---'
	// with nothing after it, as some editors leave) may follow.
	for {
		var more yaml.Node
		err := dec.Decode(&more)
		if err == io.EOF {
			break
		}
		if err != nil {
			line, msg := yamlLine(err)
			return &Error{File: file, Line: line, Err: errors.New(msg)}
		}
		if !emptyDocument(&more) {
			return &Error{File: file, Line: more.Line, Err: errors.New("a second YAML document starts here ('---'): a configuration is one document; merge the two, or remove the '---' line")}
		}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil // only comments
	}
	d := &decoder{file: file}
	return d.value(doc.Content[0], reflect.ValueOf(dst).Elem(), "", doc.Content[0].Line)
}

type decoder struct {
	file string
}

func (d *decoder) errorf(n *yaml.Node, key, format string, args ...any) error {
	return &Error{File: d.file, Line: n.Line, Key: key, Err: fmt.Errorf(format, args...)}
}

var unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()

// value decodes n into v, whose dotted key is key, written on line line.
func (d *decoder) value(n *yaml.Node, v reflect.Value, key string, line int) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil // "key:" with nothing after it keeps the default
	}
	switch t := v.Type(); {
	case t.Kind() == reflect.Struct && !decodesItself(t):
		if r, ok := v.Addr().Interface().(resetter); ok && n.Kind == yaml.MappingNode {
			r.reset(n)
		}
		if err := d.fields(n, v, key); err != nil {
			return err
		}
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct && !decodesItself(t.Elem()):
		if err := d.items(n, v, key); err != nil {
			return err
		}
	default:
		if err := n.Decode(v.Addr().Interface()); err != nil {
			_, msg := yamlLine(err)
			return &Error{File: d.file, Line: n.Line, Key: key, Err: errors.New(msg)}
		}
	}
	if val, ok := v.Addr().Interface().(validator); ok {
		if err := val.validate(); err != nil {
			if ke, ok := errors.AsType[*keyError](err); ok {
				sub := key + "." + ke.key
				if key == "" {
					sub = ke.key
				}
				return &Error{File: d.file, Line: keyLine(n, ke.key), Key: sub, Err: ke.err}
			}
			return &Error{File: d.file, Line: line, Key: key, Err: err}
		}
	}
	return nil
}

// fields decodes the mapping n into the struct v, refusing unknown and
// repeated keys.
func (d *decoder) fields(n *yaml.Node, v reflect.Value, key string) error {
	if n.Kind != yaml.MappingNode {
		what := "a section"
		if key == "" {
			what = "a mapping of sections"
		}
		return d.errorf(n, key, "must be %s (keys and values), not %s", what, describe(n))
	}
	t := v.Type()
	seen := make(map[string]bool)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Value == "<<" {
			return d.errorf(k, key, "merge keys (<<) are not supported; write the keys out")
		}
		name := k.Value
		full := name
		if key != "" {
			full = key + "." + name
		}
		if seen[name] {
			return d.errorf(k, full, "key appears twice")
		}
		seen[name] = true
		f, ok := fieldByKey(t, name)
		if !ok {
			return d.errorf(k, full, "unknown key (known keys here: %s)", strings.Join(keysOf(t), ", "))
		}
		if err := d.value(val, v.FieldByIndex(f.Index), full, k.Line); err != nil {
			return err
		}
	}
	return nil
}

// items decodes the sequence n into the slice v, whose elements are
// structs, each checked as strictly as a section: the yaml package would
// silently drop an unknown key in a list item. Like any list in a file, the
// result replaces v's elements.
func (d *decoder) items(n *yaml.Node, v reflect.Value, key string) error {
	if n.Kind != yaml.SequenceNode {
		return d.errorf(n, key, "must be a list, not %s", describe(n))
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		if err := d.value(item, s.Index(i), key, item.Line); err != nil {
			return err
		}
	}
	v.Set(s)
	return nil
}

// decodesItself reports whether *t implements yaml.Unmarshaler, so that
// the yaml package, not the decoder, decodes values of type t.
func decodesItself(t reflect.Type) bool {
	return reflect.PointerTo(t).Implements(unmarshalerType)
}

// fieldByKey returns the field of t whose yaml tag names key.
func fieldByKey(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if tagName(f) == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// keysOf lists the keys a struct type accepts, sorted.
func keysOf(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		if name := tagName(t.Field(i)); name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	slices.Sort(keys)
	return keys
}

func tagName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	return name
}

// keyLine returns the line of the dotted sub-key path within the mapping n,
// or n's own line when it is not there (the value came from the defaults).
func keyLine(n *yaml.Node, path string) int {
	line := n.Line
	for part := range strings.SplitSeq(path, ".") {
		if n.Kind != yaml.MappingNode {
			break
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == part {
				line, next = n.Content[i].Line, n.Content[i+1]
				break
			}
		}
		if next == nil {
			break
		}
		n = next
	}
	return line
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	return fmt.Sprintf("%q", n.Value)
}

var yamlLineRE = regexp.MustCompile(`^(?:yaml: )?(?:unmarshal errors:\n\s*)?line (\d+): (.*)$`)

// yamlLine splits the yaml package's "yaml: line N: msg" into N and msg.
func yamlLine(err error) (int, string) {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		var line int
		fmt.Sscan(m[1], &line)
		return line, m[2]
	}
	return 0, strings.TrimPrefix(msg, "yaml: ")
}

// emptyDocument reports whether doc, a document node, holds nothing but
// comments.
func emptyDocument(doc *yaml.Node) bool {
	if len(doc.Content) == 0 {
		return true
	}
	n := doc.Content[0]
	return len(doc.Content) == 1 && n.Kind == yaml.ScalarNode && n.Tag == "!!null" && n.Value == ""
}

// checkUTF8 refuses data that is not UTF-8, at the line and column of the
// first bad byte: the YAML parser's own message says neither.
func checkUTF8(file string, data []byte) error {
	if bytes.HasPrefix(data, []byte{0xfe, 0xff}) || bytes.HasPrefix(data, []byte{0xff, 0xfe}) {
		return &Error{File: file, Line: 1, Err: errors.New("the file is UTF-16; save it as UTF-8")}
	}
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return &Error{File: file, Line: line, Err: fmt.Errorf("column %d: byte 0x%02x is not UTF-8; save the file as UTF-8", col, data[i])}
		}
		if r == '\n' {
			line, col = line+1, 0
		}
		i += n
		col++
	}
	return nil
}
