package benchrun

import (
	"fmt"
	"math/rand/v2"
)

// An Order is the order in which the runs of the two sides are made.
type Order string

const (
	// Interleaved alternates the sides in a balanced order, old new
	// new old old new…, so that a machine that drifts (thermal
	// throttling, a backup starting, a neighbour's build) slows both
	// sides alike instead of the side that happened to run last.
	Interleaved Order = "interleaved"

	// Shuffled runs the same runs in a random order; the seed is
	// recorded so the order can be repeated.
	Shuffled Order = "shuffled"

	// Sequential runs all of the old side, then all of the new: the
	// naive order, kept to measure how much interleaving helps.
	Sequential Order = "sequential"
)

// ParseOrder returns the order called name.
func ParseOrder(name string) (Order, error) {
	switch o := Order(name); o {
	case Interleaved, Shuffled, Sequential:
		return o, nil
	}
	return "", fmt.Errorf("unknown order %q (want interleaved, shuffled or sequential)", name)
}

// A job is one run of one package's benchmarks on one side.
type job struct {
	side  int // 0 old, 1 new
	pkg   int // index into the packages
	round int // from 0: the runs of a round are one a side of each package
}

// schedule returns the runs to make: count per side and package, in order.
func schedule(order Order, count, npkg int, seed uint64) []job {
	return scheduleFrom(order, 0, count, npkg, seed)
}

// scheduleFrom returns the runs of rounds from to from+count−1: a
// sequential comparison (Options.Plan) schedules one look's rounds at a
// time, and the interleaved order alternates which side goes first across
// looks as within one.
func scheduleFrom(order Order, from, count, npkg int, seed uint64) []job {
	var jobs []job
	switch order {
	case Sequential:
		for side := range 2 {
			for i := from; i < from+count; i++ {
				for p := range npkg {
					jobs = append(jobs, job{side, p, i})
				}
			}
		}
		return jobs
	}
	// ABBA: round i runs old then new when i is even, new then old
	// when odd, so each side goes first equally often and no side
	// always follows the other.
	for i := from; i < from+count; i++ {
		for p := range npkg {
			first := i % 2
			jobs = append(jobs, job{first, p, i}, job{1 - first, p, i})
		}
	}
	if order == Shuffled {
		rng := rand.New(rand.NewPCG(seed+uint64(from), seed^0x9e3779b97f4a7c15))
		rng.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
	}
	return jobs
}
