// Command cardapio designs DynamoDB data models and proves what they cost.
package main

import (
	"os"

	"github.com/cardapio/cardapio/internal/cli"
	// The process runs under supervision, started before the other inits:
	// a crash of the runtime exits 1, never the 2 of bad input.
	_ "github.com/cardapio/cardapio/internal/supervise"
)

// testCrash crashes the run on demand in a build with the crashtest tag,
// so the tests can see how a crash is reported; it does nothing otherwise.
var testCrash = func() {}

func main() {
	testCrash()
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
