package bench

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// call is one operation under measurement.
type call func(ctx context.Context) error

// sample is what one round of one side measured.
type sample struct {
	lat  []time.Duration // one per operation
	wall time.Duration   // the whole round
}

// throughput is operations per second over the round.
func (s sample) throughput() float64 {
	if s.wall <= 0 {
		return 0
	}
	return float64(len(s.lat)) / s.wall.Seconds()
}

// load runs n calls of f from conc concurrent callers and times each.
func load(ctx context.Context, f call, conc, n int) (sample, error) {
	conc = max(1, min(conc, n))
	lat := make([]time.Duration, n)
	var (
		wg      sync.WaitGroup
		errOnce sync.Once
		first   error
	)
	start := time.Now()
	for g := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < n; i += conc {
				t0 := time.Now()
				err := f(ctx)
				lat[i] = time.Since(t0)
				if err != nil {
					errOnce.Do(func() { first = fmt.Errorf("call %d: %w", i, err) })
					return
				}
			}
		}()
	}
	wg.Wait()
	return sample{lat: lat, wall: time.Since(start)}, first
}

// side is one contender of a comparison: run measures one round.
type side struct {
	name string
	run  func(ctx context.Context) (sample, error)
}

// interleave runs every side once per round, in turn (A B A B …), so that
// the machine's drift affects each alike, and returns each side's rounds.
func interleave(ctx context.Context, rounds int, sides ...side) ([][]sample, error) {
	out := make([][]sample, len(sides))
	for r := range rounds {
		for i, s := range sides {
			smp, err := s.run(ctx)
			if err != nil {
				return nil, fmt.Errorf("%s, round %d: %w", s.name, r+1, err)
			}
			out[i] = append(out[i], smp)
		}
	}
	return out, nil
}

// stats summarizes the rounds of one side.
type stats struct {
	median, p99 time.Duration
	throughput  float64 // the median round's operations per second
	n           int
}

func summarize(rounds []sample) stats {
	var all []time.Duration
	tps := make([]float64, 0, len(rounds))
	for _, r := range rounds {
		all = append(all, r.lat...)
		tps = append(tps, r.throughput())
	}
	slices.Sort(all)
	slices.Sort(tps)
	st := stats{median: quantile(all, 0.5), p99: quantile(all, 0.99), n: len(all)}
	if len(tps) > 0 {
		st.throughput = tps[len(tps)/2]
	}
	return st
}

// quantile returns the q-quantile of sorted by the nearest-rank method.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.999999) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
