package main

import (
	"flag"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/step/benchrun"
)

// The config package checks bench.order and bench.format without importing
// benchrun (configuration stays a leaf); its lists must be benchrun's.
func TestBenchConfigLists(t *testing.T) {
	for _, o := range config.BenchOrders {
		if _, err := benchrun.ParseOrder(o); err != nil {
			t.Errorf("config accepts order %q, benchrun does not: %v", o, err)
		}
	}
	if len(config.BenchOrders) != 3 {
		t.Errorf("config.BenchOrders = %q; benchrun has interleaved, shuffled, sequential", config.BenchOrders)
	}
	if len(config.BenchFormats) != len(benchrun.Formats) {
		t.Errorf("config.BenchFormats = %q, benchrun.Formats = %q", config.BenchFormats, benchrun.Formats)
	}
	for i, f := range benchrun.Formats {
		if i < len(config.BenchFormats) && config.BenchFormats[i] != string(f) {
			t.Errorf("config.BenchFormats[%d] = %q, benchrun.Formats[%d] = %q", i, config.BenchFormats[i], i, f)
		}
	}
}

// The command line in the JSON result can be run again: a repeated flag
// appears once per value.
func TestBenchCommandLine(t *testing.T) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	cmdBench.setup(fs)
	if err := fs.Parse([]string{"-pkg", "./a", "-pkg", "./b", "-count", "3", "HEAD~2"}); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(commandLine(fs, fs.Args()), " ")
	want := "patchbot bench -count=3 -pkg=./a -pkg=./b HEAD~2"
	if got != want {
		t.Errorf("commandLine = %q, want %q", got, want)
	}
}
