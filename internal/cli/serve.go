package cli

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cardapio/cardapio/engine"
	"github.com/cardapio/cardapio/internal/digits"
	"github.com/cardapio/cardapio/throughput"
)

func init() { commands = append(commands, newServeCmd) }

// serveConfig is what serve's flags set.
type serveConfig struct {
	sweep     time.Duration
	limits    bool // --throughput
	scale     float64
	warmRead  int64
	warmWrite int64
	lag       time.Duration

	shared      bool
	credentials string
	policies    []string
	inflight    string
	inflightSet bool // --max-inflight was given
	server      engine.Limits
	loopback    bool // the address to listen on is a loopback one

	memory         string  // --memory-limit: auto, off or a size
	memoryFactor   float64 // --memory-factor
	memoryFloor    string  // --memory-floor
	memoryHeadroom float64 // --memory-headroom
	memLimit       *engine.MemoryLimit

	data      string // --data: the data directory, "" in memory
	sync      string
	syncEvery time.Duration
	store     *engine.DataDir // the spaces kept in data, nil in memory
}

// newServeCmd runs the embedded engine as a DynamoDB endpoint.
// serveLong is serve's help: what the engine serves, its limits, memory
// and security, and the exit codes. It is kept beside the command rather
// than in it, so that the command reads as what it does.
const serveLong = `Run the embedded DynamoDB-compatible engine on a local address.

Any SDK or the AWS CLI can use it as an endpoint. By default tables live
in memory only: every table, item and stream is
lost when the server stops, even on a clean SIGINT or SIGTERM.

Data. --data DIR keeps them across restarts: tables with their indexes,
TTL and stream settings, items, and stream records, in an append-only log
that is compacted into snapshots as it grows (each region and account in
DIR/ACCOUNT/REGION, DIR itself with --shared). On start the directory is
restored: the latest snapshot, then the log after it; indexes are rebuilt.
The first torn or damaged record of the last log segment (found by its
checksum) is taken for the log's end, where a crash leaves one: the log
is cut there, said on stderr, and every byte after it kept beside the log
(intact records after damage in the middle too: restore them by hand).
Damage in a snapshot, or in a segment that another follows, stops the
server (exit 1) rather than start with wrong tables. --sync says what a crash can
lose:
  --sync always    a write is acknowledged only once it is on stable
                   storage (fsync, shared by concurrent writers): a
                   kill -9, or a power cut, loses no acknowledged write.
  --sync interval  (default) the log is handed to the operating system
                   every 2ms and synced every --sync-interval (100ms): a
                   kill -9 loses at most the writes acknowledged in the
                   last 2ms, a power cut those of the last interval (both
                   longer on a machine too loaded to run the writer, and
                   while the log moves to a new segment, which waits for
                   the old one's fsync: up to that fsync's time).
Under either a transaction is kept whole or not at all, and a clean
shutdown loses nothing. One server at a time may use a directory.

Signatures and identities. Every request must be signed (SigV4), as
DynamoDB requires: an unsigned one is refused with
MissingAuthenticationTokenException. By default any credentials are
accepted, as DynamoDB Local does. With --credentials FILE only the access
keys the file lists are, and signatures are verified for real: an unknown
key is UnrecognizedClientException, a wrong secret or a tampered request
InvalidSignatureException, a clock more than 15 minutes off too, and a
presigned request (signed in its query string) past its X-Amz-Expires.
The file:

  {"keys": [{"accessKeyId": "AKIAT042EXAMPLE", "secretAccessKey": "...",
             "account": "111122223333", "user": "api-t042",
             "tags": {"tenantId": "t042"}}]}

(also "arn" for a role session, "sessionToken" to require one).

Regions and accounts. Tables are scoped by the region the request is
signed for, and under --credentials by the key's account: a client signing
for eu-west-1 sees none of us-east-1's tables, and ARNs (table names given
as ARNs, tag operations) must name its own region and account.
--shared keeps one space for every region and account. At most 64 spaces
are served (LimitExceededException beyond).

IAM policies. --policy attaches an IAM policy document to identities
(WHO=FILE, WHO an access key ID, user name or principal ARN; FILE alone:
every identity), and every request is then authorized as AWS IAM does for
DynamoDB: Allow and Deny, actions and resources (tables, indexes) with
wildcards, the conditions dynamodb:LeadingKeys, dynamodb:Attributes,
dynamodb:Select, dynamodb:ReturnValues, aws:PrincipalTag/... and the
others of IAM's String, Numeric, Bool, Arn, IpAddress and Null operators,
ForAllValues and ForAnyValue, ${aws:PrincipalTag/...} substituted. A
refusal is AccessDeniedException worded as on AWS. An identity with no
policy attached may do nothing once any --policy is given.

Exposure. On a loopback address (the default) only requests addressed to
localhost (or a name under .localhost), an address of 127.0.0.0/8 or
[::1] are answered (no DNS rebinding). Binding any
other address prints a warning unless --credentials is set. Under
--credentials the throughput figures (which show partition key values)
answer only a verified signature, with its own account's tables.

Limits. Bodies are read as they arrive; at most --max-inflight bytes of
them are held at once across connections, a request beyond that refused
with HTTP 503 ServiceUnavailable (SDKs retry it); a body over 32 MiB is
refused. At most --max-connections are open (by default 4,096 or the
descriptor limit less 64, less 384 with --data, whose logs need
descriptors of their own): when full, the longest idle connection is
closed, and with none idle a new one is answered 503. Slow, stalled and
idle connections end at their timeouts (checked every eighth of the
shortest, at least every second, so one may run over by that much; a
new connection has --read-header-timeout for its first request). SIGINT
or SIGTERM stop accepting, let requests in progress finish
(--shutdown-timeout), and exit 0.
An address-space limit (ulimit -v, prlimit --as) is no memory cap: the
Go runtime reserves about 1.3 GiB of address space at start that it never
touches, and an allocation past the limit kills the process (fatal error:
out of memory) with far less in use. When one is set, serve warns,
starts again with one glibc malloc arena (MALLOC_ARENA_MAX=1, unless
set) so that threads do not take 64 MiB of it each, and holds at most a
quarter of the room left in bodies unless --max-inflight is given. Cap
memory with --memory-limit or GOMEMLIMIT, or a cgroup.

Memory. The Go runtime's soft memory limit follows what the tables hold:
--memory-factor (1.5) x their bytes as DynamoDB counts them (items,
index entries, retained stream records) + --memory-floor (48MiB),
recomputed every second, and never below --memory-headroom (1.25) x the
live heap plus the runtime's own memory, so that the collector always
has room to work. Without a limit the collector lets the heap grow to
twice its live size; under it, it collects when the heap reaches five
times its live size (GOGC 400, unless GOGC is set in the environment)
or, more often, as memory nears the limit, for more CPU: a million
items of 300 bytes peak at about 2.1 times their bytes (2.8 without
the limit), the reference model's smaller items at 2.9 (4.3 without),
for about 1.5 times the CPU a write. Items
take more memory than their bytes (keys, headers, the tree), small ones
the most, so the headroom sets the limit for them: raise it to spend
less CPU collecting, lower it toward 1 to hold less memory. The limit is soft:
memory the tables need beyond it is still taken. --memory-limit SIZE
fixes it instead, off leaves the runtime alone (then GOMEMLIMIT, when
set, applies; with no --memory flag, a GOMEMLIMIT in the environment is
kept as it is). The figures (stored bytes, limit, live heap, RSS and its
peak, collector cycles) are served as JSON at GET ` + engine.MemoryPath + `; under
--credentials only to a verified signature.

With --throughput, requests pass DynamoDB's throughput limits as modelled
by the engine: each table and global secondary index is split into
partitions by key hash, each taking 1,000 write and 3,000 read units a
second; provisioned tables bank up to 300 s of unused capacity; on-demand
tables serve their warm throughput (--warm-write, --warm-read) or twice
their previous peak; an index that cannot take a write refuses the table
write (back-pressure). Refused requests fail with ThrottlingException
(on-demand) or ProvisionedThroughputExceededException (provisioned)
carrying ThrottlingReasons such as TableWriteKeyRangeThroughputExceeded
or IndexWriteKeyRangeThroughputExceeded, as on AWS. --throughput-scale
multiplies every capacity, so that with 0.01 local traffic meets the
limits 100 times the traffic meets on AWS.

The model's figures (per table, index and partition: consumed and
throttled units, per second and in total, rates, splits, the most
throttled keys) are served as JSON at GET ` + engine.ThroughputPath + ` on the same
address, for the region of the request's signature (or ?region=, default
us-east-1). They show partition key values: under --credentials only a
verified signature gets them, for its own account (and, with policies,
only an identity allowed dynamodb:DescribeTable on arn:...:table/*).

--gsi-lag delays every change to a global secondary index: a Query or
Scan of the index sees a write only that long after it, as DynamoDB's
asynchronous index propagation does. Reads of the table are never
delayed.

Exit codes: 0 after a clean shutdown, 1 on an internal failure, 2 on bad
flags, a bad credentials or policy file, or an address that cannot be
listened on.`

const serveExample = `  cardapio serve --addr 127.0.0.1:8000
  cardapio serve --throughput --throughput-scale 0.01 --gsi-lag 50ms
  cardapio serve --credentials keys.json --policy api-t042=tenant-policy.json
  curl http://127.0.0.1:8000` + engine.ThroughputPath + `
  curl --aws-sigv4 aws:amz:us-east-1:dynamodb --user AKID:SECRET http://127.0.0.1:8000` + engine.ThroughputPath

func newServeCmd(e *env) *cobra.Command {
	var addr string
	c := serveConfig{}
	cmd := &cobra.Command{
		Use:     "serve",
		Short:   "Run the embedded DynamoDB-compatible engine on a local address",
		Long:    serveLong,
		Example: serveExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := oneArena(); err != nil {
				fmt.Fprintf(e.stderr, "warning: could not start again with one malloc arena under the address-space limit: %v\n", err)
			}
			f := cmd.Flags()
			if !c.limits {
				for _, n := range []string{"throughput-scale", "warm-read", "warm-write"} {
					if f.Changed(n) {
						return badInput(fmt.Errorf("--%s needs --throughput", n))
					}
				}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer func() {
				// Ctrl-C reaches a supervised serve twice, from the
				// terminal and forwarded by its parent; the second may
				// come after a clean shutdown. Restoring the default
				// action then would let it kill a process that stopped
				// cleanly, so later signals stay caught, and dropped.
				signal.Notify(make(chan os.Signal, 1), syscall.SIGINT, syscall.SIGTERM)
				stop()
			}()
			c.loopback = loopbackAddr(addr)
			c.inflightSet = f.Changed("max-inflight")
			ml, err := memoryLimit(c, f.Changed("memory-limit") || f.Changed("memory-factor") || f.Changed("memory-floor") || f.Changed("memory-headroom"))
			if err != nil {
				return badInput(err)
			}
			c.memLimit = ml
			if c.data != "" {
				mode, err := engine.ParseSync(c.sync)
				if err != nil {
					return badInput(err)
				}
				if c.syncEvery <= 0 {
					return badInput(fmt.Errorf("--sync-interval must be positive, got %v", c.syncEvery))
				}
				c.store = &engine.DataDir{Data: engine.Data{Dir: c.data, Sync: mode, Interval: c.syncEvery,
					Logf: func(f string, a ...any) { fmt.Fprintf(e.stderr, f+"\n", a...) }}}
				if err := c.store.Claim(); err != nil {
					return err // in use, or cannot be created: exit 1
				}
			} else if f.Changed("sync") || f.Changed("sync-interval") {
				return badInput(errors.New("--sync and --sync-interval need --data"))
			}
			srv, err := newServer(ctx, c, e)
			if err != nil {
				var df dataFailure
				if c.store != nil {
					_ = c.store.Close()
					if errors.As(err, &df) {
						return df.error // a data directory that cannot be used: exit 1
					}
				}
				return badInput(err)
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				if c.store != nil {
					_ = c.store.Close()
				}
				return badInput(fmt.Errorf("listen on %s: %w", addr, err))
			}
			return serve(ctx, ln, srv, c, e)
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8000", "address to listen on")
	rangeVar(f, &c.sweep, "ttl-sweep", 10*time.Second, between(0, 24*time.Hour), "how often expired items are deleted (0: never, e.g. to serve a population drawn as of a past date whole)")
	f.BoolVar(&c.limits, "throughput", false, "model DynamoDB's throughput limits: partitions, burst, on-demand scaling, throttling with ThrottlingReasons")
	rangeVar(f, &c.scale, "throughput-scale", 1, above(0.0, 1000), "multiply every capacity by this factor (0.01: local traffic meets the limits 100x the traffic meets on AWS)")
	rangeVar(f, &c.warmWrite, "warm-write", throughput.DefaultWarmWrite, between[int64](1, 100_000_000), "warm write throughput (units/s, AWS scale) of on-demand tables and indexes created without one")
	rangeVar(f, &c.warmRead, "warm-read", throughput.DefaultWarmRead, between[int64](1, 100_000_000), "warm read throughput (units/s, AWS scale) of on-demand tables and indexes created without one")
	rangeVar(f, &c.lag, "gsi-lag", 0, between(0, time.Hour), "delay before global secondary index reads see base-table writes (e.g. 50ms; 0: none)")
	f.BoolVar(&c.shared, "shared", false, "one space of tables for every region and account (default: a space per region, and per account under --credentials)")
	f.StringVar(&c.credentials, "credentials", "", "JSON file of the access keys accepted (secret, account, user or arn, tags); signatures are then verified")
	f.StringArrayVar(&c.policies, "policy", nil, "attach an IAM policy document: [WHO=]FILE, WHO an access key ID, user name or principal ARN (none: every identity); repeatable")
	f.StringVar(&c.inflight, "max-inflight", "512MiB", "most bytes of request bodies held at once, across connections (B, KiB, MiB, GiB)")
	rangeVar(f, &c.server.MaxConnections, "max-connections", 0, between(0, 1<<20), "most open connections (0: 4096, or the descriptor limit less 64 when lower, less 384 with --data)")
	rangeVar(f, &c.server.ReadHeaderTimeout, "read-header-timeout", engine.DefaultReadHeaderTimeout, between(0, day), "time a client may take to send a request's headers")
	rangeVar(f, &c.server.ReadTimeout, "read-timeout", engine.DefaultReadTimeout, between(0, day), "time a client may take to send a whole request")
	rangeVar(f, &c.server.WriteTimeout, "write-timeout", engine.DefaultWriteTimeout, between(0, day), "time answering a request may take")
	rangeVar(f, &c.server.IdleTimeout, "idle-timeout", engine.DefaultIdleTimeout, between(0, day), "time a kept-alive connection may wait for its next request")
	rangeVar(f, &c.server.ShutdownTimeout, "shutdown-timeout", engine.DefaultShutdownTimeout, between(0, day), "on SIGINT or SIGTERM, time requests in progress have to finish")
	f.StringVar(&c.memory, "memory-limit", "auto", "soft memory limit of the process: auto (follows the stored bytes, see --memory-factor), off, or a size such as 2GiB")
	rangeVar(f, &c.memoryFactor, "memory-factor", engine.DefaultMemoryFactor, between(1.0, 100), "with --memory-limit auto, the limit is this many times the bytes the tables hold, plus --memory-floor")
	f.StringVar(&c.memoryFloor, "memory-floor", "48MiB", "with --memory-limit auto, the limit's part that does not depend on the tables")
	rangeVar(f, &c.memoryHeadroom, "memory-headroom", engine.DefaultMemoryMinHeadroom, between(1.0, 100), "with --memory-limit auto, the limit is never below this many times the live heap (plus the runtime's own memory)")
	f.StringVar(&c.data, "data", "", "keep tables, items and streams in this directory across restarts (default: in memory, lost on exit)")
	f.StringVar(&c.sync, "sync", "interval", "with --data, when writes reach stable storage: always (before each acknowledgement) or interval")
	rangeVar(f, &c.syncEvery, "sync-interval", 100*time.Millisecond, between(time.Millisecond, time.Hour), "with --data --sync interval, how often the log is synced to stable storage")
	return cmd
}

// newServer builds the server the flags describe: its trust (keys and
// policies), its limits, and how it creates the engine of each region and
// account, each with its own throughput model and TTL sweep.
func newServer(ctx context.Context, c serveConfig, e *env) (*engine.Server, error) {
	lim := c.server
	if c.inflight != "" {
		n, err := parseBytes(c.inflight)
		if err != nil {
			return nil, fmt.Errorf("--max-inflight: %w", err)
		}
		lim.MaxInflight = n
	}
	if limit, mapped, ok := engine.AddressSpace(); ok && !c.inflightSet && mapped > 0 {
		// Under an address-space limit the bodies, their decoded copies
		// and the collector's headroom must fit the room the runtime's
		// reservations leave: a quarter of it for bodies.
		room := int64(0)
		if limit > mapped {
			room = int64(limit - mapped)
		}
		lim.MaxInflight = min(lim.MaxInflight, max(room/4, 1<<20))
	}
	if lim.MaxConnections == 0 && c.store != nil {
		// The data log's files need descriptors too: 1,100 idle
		// connections under ulimit -n 1024 with 64 spaces kept made
		// accept4 fail (too many open files) and new clients wait.
		lim.MaxConnections = engine.DefaultConnectionsReserving(engine.DataDescriptorReserve(engine.DefaultMaxSpaces))
	}
	trust, err := engine.LoadTrust(c.credentials, c.policies)
	if err != nil {
		return nil, err
	}
	space := func(region, account string) (*engine.Engine, error) {
		opts := engine.Options{Region: region, Account: account, TTLSweep: c.sweep, IndexLag: c.lag}
		if c.limits {
			// The model names the space's tables in its ARNs (figures,
			// ThrottlingReasons): its region and account, not the defaults.
			m, err := throughput.New(throughput.Config{Scale: c.scale, Region: region, Account: account})
			if err != nil {
				return nil, err
			}
			opts.Throughput, opts.WarmRead, opts.WarmWrite = m, c.warmRead, c.warmWrite
		}
		eng := engine.New(opts)
		if c.store != nil {
			var err error
			if eng, err = c.store.Open(region, account, opts); err != nil {
				return nil, dataFailure{err}
			}
			if dir, _ := c.store.Dir(region, account); eng.Recovered().Tables > 0 {
				r := eng.Recovered()
				fmt.Fprintf(e.stdout, "data %s: %s, %s restored (%s replayed)\n", dir, digits.Count(r.Tables, "table"), digits.Count(r.Items, "item"), digits.Count(r.Records, "log record"))
			}
		}
		if c.sweep > 0 {
			go eng.RunTTL(ctx)
		}
		return eng, nil
	}
	o := engine.ServerOptions{NewSpace: space, Keys: trust.Keys, Policies: trust.Policies(), Limits: lim, LoopbackHosts: c.loopback}
	if c.shared {
		if o.Engine, err = space("", ""); err != nil {
			return nil, err
		}
		// Data kept by a server without --shared is not lost, only not
		// served: say so rather than start with its tables missing.
		if c.store != nil {
			if found, err := c.store.Found(); err == nil && len(found) > 0 {
				fmt.Fprintf(e.stderr, "warning: %s also holds %d spaces kept without --shared (DIR/ACCOUNT/REGION, e.g. %s/%s): --shared serves none of their tables\n",
					c.data, len(found), found[0][1], found[0][0])
			}
		}
	} else if c.store != nil {
		if c.store.HoldsShared() {
			fmt.Fprintf(e.stderr, "warning: %s holds the tables of a server started with --shared: without --shared they are not served (they are kept; start with --shared to serve them)\n", c.data)
		}
		found, err := c.store.Found()
		if err != nil {
			return nil, err
		}
		for _, sp := range found {
			eng, err := space(sp[0], sp[1])
			if err != nil {
				return nil, err
			}
			o.Spaces = append(o.Spaces, engine.Space{Region: sp[0], Account: sp[1], Engine: eng})
		}
	}
	if trust.Keys != nil {
		fmt.Fprintf(e.stdout, "signatures verified: %s from %s\n", digits.Count(len(trust.Keys.Identities()), "access key"), c.credentials)
	}
	if n := trust.Attached(); n > 0 {
		fmt.Fprintf(e.stdout, "IAM policies enforced: %d attached\n", n)
	}
	return engine.NewServer(o)
}

// limitGCPercent is the collector's GOGC while a memory limit is in
// force: the limit bounds the heap, and at the default 100 a server
// holding little collected every few hundred milliseconds under load
// (a pause of its requests each time, and more CPU a request).
const limitGCPercent = 400

// memoryLimit is the memory limit the flags ask for, nil for none: off,
// or no flag given and GOMEMLIMIT set in the environment.
func memoryLimit(c serveConfig, changed bool) (*engine.MemoryLimit, error) {
	if math.IsNaN(c.memoryFactor) || math.IsInf(c.memoryFactor, 0) || c.memoryFactor <= 0 {
		return nil, fmt.Errorf("--memory-factor must be a positive number, got %v", c.memoryFactor)
	}
	if math.IsNaN(c.memoryHeadroom) || math.IsInf(c.memoryHeadroom, 0) || c.memoryHeadroom < 1 {
		return nil, fmt.Errorf("--memory-headroom must be a number of at least 1, got %v", c.memoryHeadroom)
	}
	floor, err := parseBytes(c.memoryFloor)
	if err != nil {
		return nil, fmt.Errorf("--memory-floor: %w", err)
	}
	switch c.memory {
	case "off":
		return nil, nil
	case "auto":
		if !changed && os.Getenv("GOMEMLIMIT") != "" {
			return nil, nil
		}
		return &engine.MemoryLimit{Factor: c.memoryFactor, Floor: floor, MinHeadroom: c.memoryHeadroom}, nil
	}
	n, err := parseBytes(c.memory)
	if err != nil {
		return nil, fmt.Errorf("--memory-limit: want auto, off or a size: %w", err)
	}
	return &engine.MemoryLimit{Fixed: n}, nil
}

// dataFailure is a data directory that cannot be restored or written:
// the server does not start (exit 1).
type dataFailure struct{ error }

// parseBytes reads a size: a number of bytes, or with a KiB, MiB or GiB
// (or KB, MB, GB) suffix.
func parseBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		mul    int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	mul := int64(1)
	num := strings.TrimSpace(s)
	for _, u := range units {
		if strings.HasSuffix(num, u.suffix) {
			num, mul = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.mul
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mul {
		return 0, fmt.Errorf("%q: want a positive size such as 512MiB", s)
	}
	return n * mul, nil
}

// serve answers DynamoDB requests on ln until ctx ends (SIGINT, SIGTERM),
// then drains.
func serve(ctx context.Context, ln net.Listener, srv *engine.Server, c serveConfig, e *env) error {
	loopback := isLoopback(ln.Addr())
	fmt.Fprintf(e.stdout, "cardapio engine listening on http://%s\n", ln.Addr())
	if !loopback && c.credentials == "" {
		fmt.Fprintf(e.stderr, "warning: %s is reachable from other machines, and any credentials are accepted: anyone who can reach it can read and change every table (use a loopback address, or --credentials)\n", ln.Addr())
	}
	if limit, mapped, ok := engine.AddressSpace(); ok {
		fmt.Fprintln(e.stderr, addressSpaceWarning(limit, mapped, srv.Limits().MaxInflight))
	}
	if c.limits {
		fmt.Fprintf(e.stdout, "throughput model on at scale %g; figures at http://%s%s\n", c.scale, ln.Addr(), engine.ThroughputPath)
	}
	if c.store != nil {
		fmt.Fprintf(e.stdout, "data kept in %s (sync %s)\n", c.data, c.sync)
	}
	if m := c.memLimit; m != nil {
		if m.Fixed > 0 {
			fmt.Fprintf(e.stdout, "memory limit %d MiB; figures at http://%s%s\n", m.Fixed>>20, ln.Addr(), engine.MemoryPath)
		} else {
			fmt.Fprintf(e.stdout, "memory limit %g x the stored bytes + %d MiB; figures at http://%s%s\n", m.Factor, m.Floor>>20, ln.Addr(), engine.MemoryPath)
		}
		mctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go srv.RunMemoryLimit(mctx, *m)
		if os.Getenv("GOGC") == "" {
			// Under the limit the collector need not also run every time
			// the heap doubles: it runs at 5 times the live heap or near
			// the limit, whichever comes first.
			defer debug.SetGCPercent(debug.SetGCPercent(limitGCPercent))
		}
	}
	err := srv.Serve(ctx, ln)
	if c.store != nil {
		// Requests have drained: what the log holds is written out.
		if cerr := c.store.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("data: %w", cerr)
		}
	}
	if ctx.Err() != nil {
		fmt.Fprintf(e.stderr, "cardapio engine stopped\n")
	}
	return err
}

// addressSpaceWarning says why an address-space limit (ulimit -v) is no
// memory cap for the server, with the room the runtime's reservations
// leave under it: past the limit the process dies of out-of-memory, with
// far less memory in use than the limit says.
func addressSpaceWarning(limit, mapped uint64, inflight int64) string {
	gib := func(n uint64) string { return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30)) }
	room := "an unknown part of it is"
	if mapped > 0 {
		left := uint64(0)
		if limit > mapped {
			left = limit - mapped
		}
		room = fmt.Sprintf("%s of it is already reserved by the Go runtime, unused, leaving %s (--max-inflight is %d MiB); it is", gib(mapped), gib(left), inflight>>20)
	}
	return fmt.Sprintf("warning: the address-space limit (ulimit -v) is %s and %s no memory cap: an allocation past it kills the server (fatal error: out of memory); cap memory with --memory-limit or GOMEMLIMIT, or a cgroup (e.g. systemd-run --scope -p MemoryMax=2G)", gib(limit), room)
}

// loopbackAddr reports whether an address to listen on is a loopback one
// (127.0.0.1:8000, [::1]:8000, localhost:8000; not :8000).
func loopbackAddr(addr string) bool {
	ta, err := net.ResolveTCPAddr("tcp", addr)
	return err == nil && ta.IP.IsLoopback()
}

// isLoopback reports whether a listener's address is a loopback one.
func isLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}
