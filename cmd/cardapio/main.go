// Command cardapio designs DynamoDB data models and proves what they cost.
package main

import (
	"os"

	"github.com/cardapio/cardapio/internal/cli"
	"github.com/cardapio/cardapio/internal/supervise"
)

// testCrash crashes the run on demand in a build with the crashtest tag,
// so the tests can see how a crash is reported; it does nothing otherwise.
var testCrash = func() {}

func main() {
	os.Exit(supervise.Main(func() int {
		testCrash()
		return cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	}))
}
