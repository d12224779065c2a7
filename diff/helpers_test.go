package diff

import (
	"testing"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
)

// loadT loads a model as the commands do, or fails the test.
func loadT(t testing.TB, path string) *catalog.Model {
	t.Helper()
	m, err := catalog.LoadWith(path, catalog.Options{ItemSize: capacity.Default().ItemSize})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}
