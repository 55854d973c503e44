//go:build race

package runtime

// raceEnabled: the race detector's shadow memory doubles what a memory test may see.
const raceEnabled = true
