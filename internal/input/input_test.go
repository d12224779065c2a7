package input

import (
	"errors"
	"fmt"
	"testing"
)

func TestMark(t *testing.T) {
	base := errors.New("no scenario \"x\"")
	err := fmt.Errorf("model.yaml: %w", Wrap(base))
	if !Is(err) {
		t.Fatalf("Is(%v) = false through a wrapping", err)
	}
	if !errors.Is(err, base) {
		t.Fatalf("the marked error no longer unwraps to its cause")
	}
	if got, want := err.Error(), "model.yaml: no scenario \"x\""; got != want {
		t.Fatalf("text %q, want %q: the mark adds no words", got, want)
	}
	if Wrap(nil) != nil {
		t.Fatal("Wrap(nil) is not nil")
	}
	if Is(base) || Is(nil) {
		t.Fatal("an unmarked error reads as bad input")
	}
	if e := Errorf("--scale %v: %w", 0, base); !Is(e) || !errors.Is(e, base) || e.Error() != "--scale 0: no scenario \"x\"" {
		t.Fatalf("Errorf: %v", e)
	}
}
