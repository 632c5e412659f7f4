// Package config loads patchbot's configuration: the defaults in config.yaml
// at the module root (embedded in the binary), overlaid by the user's file.
//
// A configuration file is checked strictly, because a misspelt key that is
// silently ignored makes a tool do the wrong thing quietly: an unknown key, a
// value of the wrong type and a value out of range are each reported as an
// *Error naming the file, the line and the dotted key.
package config

import (
	"errors"
	"fmt"
	"os"

	"github.com/patchbot/patchbot"
)

// Config is patchbot's whole configuration. Each section belongs to the step
// that reads it; a key exists only when some code reads it.
type Config struct {
	Bench  Bench  `yaml:"bench" json:"bench"`
	Port   Port   `yaml:"port" json:"port"`
	Freeze Freeze `yaml:"freeze" json:"freeze"`
	Review Review `yaml:"review" json:"review"`
	Run    Run    `yaml:"run" json:"run"`
	Serve  Serve  `yaml:"serve" json:"serve"`
	Sweep  Sweep  `yaml:"sweep" json:"sweep"`
	Track  Track  `yaml:"track" json:"track"`
}

// An Error is a problem with a configuration file, located by line and key.
type Error struct {
	File string // file name, as given to Load or Parse
	Line int    // 1-based line; 0 when the problem is not on one line
	Key  string // dotted path of the key, e.g. "bench.count"; "" for the whole file
	Err  error
}

func (e *Error) Error() string {
	msg := e.File
	if e.Line > 0 {
		msg += fmt.Sprintf(":%d", e.Line)
	}
	if e.Key != "" {
		msg += ": " + e.Key
	}
	return msg + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// DefaultName is the name errors in the built-in configuration carry.
const DefaultName = "config.yaml (built in)"

// Default returns the built-in configuration, the module's config.yaml.
func Default() *Config {
	c := new(Config)
	if err := overlay(c, DefaultName, patchbot.DefaultConfig); err != nil {
		// The built-in file is tested; reaching this is a build of a broken tree.
		panic("patchbot: built-in configuration: " + err.Error())
	}
	return c
}

// Load returns the built-in configuration overlaid with the file at path.
// An empty path gives the built-in configuration alone.
func Load(path string) (*Config, error) {
	c := Default()
	if path == "" {
		return c, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &Error{File: path, Err: errors.New("no such configuration file")}
		}
		return nil, &Error{File: path, Err: err}
	}
	if err := overlay(c, path, data); err != nil {
		return nil, err
	}
	return c, nil
}

// Parse returns the built-in configuration overlaid with data, which errors
// call name. Keys absent from data keep their built-in values; a list given in
// data replaces the built-in list rather than extending it.
func Parse(name string, data []byte) (*Config, error) {
	c := Default()
	if err := overlay(c, name, data); err != nil {
		return nil, err
	}
	return c, nil
}
