package memcore

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestSafeWriteSymlinkSwapRace swaps a subfolder for a symlink to an outside
// folder (absolute and relative, in turn) while SafeWrite writes keys below
// it, and asserts that no file ever lands outside.
func TestSafeWriteSymlinkSwapRace(t *testing.T) {
	if testing.Short() {
		t.Skip("race between writer and swapper")
	}
	f := newSafeFixture(t)
	sub := filepath.Join(f.dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		swapLoop(stop, sub, []string{f.outside, "../outside"})
	}()

	const maxWrites = 3000
	deadline := time.Now().Add(time.Second) // bounds the run, asserts nothing
	var ok, unsafe, other int
	for i := 0; i < maxWrites && time.Now().Before(deadline); i++ {
		key := fmt.Sprintf("sub/k%d.md", i)
		if i%2 == 1 {
			key = fmt.Sprintf("sub/deeper/k%d.md", i)
		}
		switch err := SafeWrite(f.dir, key, []byte("x")); {
		case err == nil:
			ok++
		case errors.Is(err, ErrUnsafePath):
			unsafe++
		default:
			other++ // the folder vanished mid-write, and the like
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("writes: %d ok, %d refused as unsafe, %d other errors", ok, unsafe, other)
	if got := tree(t, f.outside); len(got) != 0 {
		t.Fatalf("files landed outside the memory folder: %v", got)
	}
	if ok == 0 || unsafe == 0 {
		t.Fatalf("race not exercised: %d ok, %d unsafe", ok, unsafe)
	}
}

// swapLoop turns path p into a symlink to each target in turn and back into a
// real folder, until stop closes.
func swapLoop(stop <-chan struct{}, p string, targets []string) {
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		os.RemoveAll(p) // a symlink: removes the link only
		os.Symlink(targets[i%len(targets)], p)
		time.Sleep(50 * time.Microsecond)
		os.Remove(p)
		os.Mkdir(p, 0o755)
		time.Sleep(50 * time.Microsecond)
	}
}

// TestSafeWriteNeverTorn has readers check, while a writer alternates two
// large contents under one key, that every read returns one of them whole.
func TestSafeWriteNeverTorn(t *testing.T) {
	f := newSafeFixture(t)
	contents := [][]byte{bytes.Repeat([]byte("a"), 1<<20), bytes.Repeat([]byte("b"), 1<<20+17)}
	if err := SafeWrite(f.dir, "big.md", contents[0]); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		defer close(errc)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := SafeWrite(f.dir, "big.md", contents[i%2]); err != nil {
				errc <- err
				return
			}
		}
	}()
	for i := range 200 {
		got, err := os.ReadFile(filepath.Join(f.dir, "big.md"))
		if err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
		if !bytes.Equal(got, contents[0]) && !bytes.Equal(got, contents[1]) {
			t.Fatalf("read %d saw a torn file of %d bytes", i, len(got))
		}
	}
	close(stop)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if got := tree(t, f.dir); len(got) != 1 {
		t.Fatalf("temporary files left behind: %v", got)
	}
}
