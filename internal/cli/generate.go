package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/generator"
	"github.com/cardapio/cardapio/internal/digits"
)

func init() { commands = append(commands, newGenerateCmd) }

type generateOptions struct {
	out, pkg, keys string
	prefix         string
	check, force   bool
}

func newGenerateCmd(e *env) *cobra.Command {
	o := &generateOptions{}
	c := &cobra.Command{
		Use:   "generate [model.yaml]",
		Short: "Generate the model's typed Go package, CloudFormation, IAM policy and NoSQL Workbench model",
		Long: `Generate writes the Go package of a model (./model.yaml by default) into
--out: key builders and parsers, entity types, a function per access
pattern and per business operation, the tables as CreateTableInput values;
beside it cloudformation.yaml, the tenant IAM policy (iam-TABLE.json) and
workbench.json. The Go code imports only the standard library and
aws-sdk-go-v2 and talks to DynamoDB through an interface *dynamodb.Client
satisfies.

--table-prefix P is the prefix the tables are deployed with: the default
of the template's TableNamePrefix parameter and the prefix the tenant
policy (iam-TABLE.json, iam.go) names the tables with, so the policy file
grants the same tables as the template's inline policy. A table that
declares no tenant isolation gets no policy file; generate says so.

--keys synthetic keys multi-attribute indexes by their synthetic
attributes, for engines without multi-attribute keys.

generate writes and deletes only its own files: those listed in
--out/.cardapio-generated (the manifest of the last generation), or
beginning with its generated header. It refuses to replace a file it did
not write (a hand-written keys.go, a symlink) unless --force, which
replaces the file or the link itself, never a link's target; another
tool's generated files in --out are left alone.

--check writes nothing: it compares --out with what the model generates
now and fails when a file differs, is missing, or is a generated file the
model no longer produces (for CI: committed generated code must be fresh).

Exit codes: 0 ok; 2 the model or a flag is invalid, or --out holds a file
cardapio did not write where it would write one; 3 --check found stale
files (named on stderr).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			path := "model.yaml"
			if len(args) == 1 {
				path = args[0]
			}
			if o.keys != string(catalog.KeysNative) && o.keys != string(catalog.KeysSynthetic) {
				return badInput(fmt.Errorf("--keys must be native or synthetic, not %q", o.keys))
			}
			return runGenerate(e, o, path)
		},
	}
	c.Flags().StringVar(&o.out, "out", "", "directory of the generated package (default: the model's name)")
	c.Flags().StringVar(&o.pkg, "package", "", "Go package name (default: the last element of --out)")
	c.Flags().StringVar(&o.keys, "keys", string(catalog.KeysNative), "index keys: native (multi-attribute) or synthetic")
	c.Flags().StringVar(&o.prefix, "table-prefix", "", "table name prefix the template defaults to and the IAM policy names")
	c.Flags().BoolVar(&o.check, "check", false, "write nothing; exit 3 when the files in --out are stale")
	c.Flags().BoolVar(&o.force, "force", false, "replace files in --out that cardapio did not write (a symlink itself, never its target)")
	return c
}

var notPackage = regexp.MustCompile(`[^a-z0-9]+`)

func runGenerate(e *env, o *generateOptions, path string) error {
	m, err := loadModel(e, path)
	if err != nil {
		return err
	}
	if o.out == "" {
		o.out = notPackage.ReplaceAllString(strings.ToLower(m.Name), "")
	}
	if o.pkg == "" {
		// A generation already there keeps its package.
		if o.pkg, err = generator.DeclaredPackage(o.out); err != nil {
			return err
		}
	}
	if o.pkg == "" {
		o.pkg = notPackage.ReplaceAllString(strings.ToLower(filepath.Base(filepath.Clean(o.out))), "")
		if o.pkg == "" || o.pkg[0] < 'a' || o.pkg[0] > 'z' {
			// A directory such as ./001 names no package: the model does.
			o.pkg = notPackage.ReplaceAllString(strings.ToLower(m.Name), "")
		}
	}
	files, err := generator.Generate(m, generator.Options{Package: o.pkg, Keys: catalog.KeyMode(o.keys), Source: filepath.Base(path), TablePrefix: o.prefix})
	if err != nil {
		return badInput(fmt.Errorf("%s: %w", path, err))
	}
	if o.check {
		stale, err := generator.Stale(o.out, files)
		if err != nil {
			return err
		}
		if len(stale) > 0 {
			pre := ""
			if o.prefix != "" {
				pre = " --table-prefix " + o.prefix
			}
			fmt.Fprintf(e.stderr, "cardapio: %s is stale against %s: %s\nhint: regenerate with cardapio generate %s --out %s --package %s --keys %s%s\n",
				o.out, path, strings.Join(stale, ", "), path, o.out, o.pkg, o.keys, pre)
			return failed(fmt.Errorf("%d stale files", len(stale)))
		}
		fmt.Fprintf(e.stdout, "ok: %s is up to date with %s (%s)\n", o.out, path, digits.Count(len(files), "file"))
		return nil
	}
	if err := generator.WriteWith(o.out, files, generator.WriteOptions{Force: o.force}); err != nil {
		if errors.Is(err, generator.ErrNotOwned) {
			return badInput(fmt.Errorf("%w\nhint: move it out of %s, or pass --force to replace it", err, o.out))
		}
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s to %s (package %s, %s keys)\n", digits.Count(len(files), "file"), o.out, o.pkg, o.keys)
	for _, n := range generator.PolicyNotes(m) {
		fmt.Fprintf(e.stdout, "note: %s\n", n)
	}
	return nil
}
