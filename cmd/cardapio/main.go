// Command cardapio designs DynamoDB data models and proves what they cost.
package main

import (
	"os"

	"github.com/cardapio/cardapio/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
