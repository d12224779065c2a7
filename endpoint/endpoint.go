// Package endpoint connects cardapio's runners (the budget gate, the dataset
// loader, the load generator) to the engine they measure: the embedded
// engine in process, any DynamoDB-compatible endpoint, or AWS through the
// standard configuration chain. Every target is reached through the same
// aws-sdk-go-v2 client, so one code path sends the requests whatever
// answers them; in process, the client's transport hands each request to
// the engine's HTTP handler without a socket.
//
// The SDK's retry behaviour changed for DynamoDB in v1.48 (4 attempts and
// a retry token budget by default). A figure that depends on retries must
// not depend on the SDK's version, so a Target always carries an explicit
// Retry policy, and reports print it.
package endpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"

	"github.com/cardapio/cardapio/engine"
)

// Kind is what answers a target's requests.
type Kind string

// Kinds of target.
const (
	Embedded Kind = "embedded" // the embedded engine, in process
	Endpoint Kind = "endpoint" // a DynamoDB-compatible server at a URL
	AWS      Kind = "aws"      // Amazon DynamoDB
)

// Retry is the SDK retry policy of a target's client.
type Retry struct {
	// MaxAttempts is the number of attempts of one request, the first
	// included; 1 sends each request once.
	MaxAttempts int
	// MaxBackoff caps the delay between attempts (the SDK draws
	// rand[0,1) x 2^attempt x base, capped here).
	MaxBackoff time.Duration
	// Quota is the size of the client's retry token bucket; 0 disables
	// the bucket (retries are never refused for want of tokens).
	Quota uint
	// Speed divides every backoff delay, for a run on a compressed clock
	// (cardapio load --speed 60 waits a second of the scenario's time,
	// not of the wall's, between attempts); 0 and 1 keep the SDK's
	// delays.
	Speed float64
}

// NoRetry sends every request once: a measurement sees each response
// itself, throttling included.
var NoRetry = Retry{MaxAttempts: 1}

// Standard is the standard retryer of aws-sdk-go-v2 before v1.48: three
// attempts, backoff capped at 20 s, 500 retry tokens.
var Standard = Retry{MaxAttempts: 3, MaxBackoff: 20 * time.Second, Quota: 500}

// String describes the policy the way reports print it.
func (r Retry) String() string {
	if r.MaxAttempts <= 1 {
		return "no retries (1 attempt)"
	}
	q := "no retry quota"
	if r.Quota > 0 {
		q = fmt.Sprintf("retry quota %d tokens", r.Quota)
	}
	sp := ""
	if r.Speed > 1 {
		sp = fmt.Sprintf(" (delays on a clock %gx faster)", r.Speed)
	}
	return fmt.Sprintf("%d attempts, backoff capped at %s%s, %s", r.MaxAttempts, r.MaxBackoff, sp, q)
}

// fasterBackoff is the SDK's exponential jitter backoff with its delays
// divided by a speed.
type fasterBackoff struct {
	inner retry.BackoffDelayer
	speed float64
}

func (b fasterBackoff) BackoffDelay(attempt int, err error) (time.Duration, error) {
	d, err := b.inner.BackoffDelay(attempt, err)
	return time.Duration(float64(d) / b.speed), err
}

// Retryer builds the SDK retryer of the policy.
func (r Retry) Retryer() aws.Retryer {
	attempts := r.MaxAttempts
	if attempts < 1 {
		attempts = 1
	}
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = attempts
		if r.MaxBackoff > 0 {
			o.MaxBackoff = r.MaxBackoff
		}
		if r.Speed > 1 {
			o.Backoff = fasterBackoff{retry.NewExponentialJitterBackoff(o.MaxBackoff), r.Speed}
		}
		if r.Quota == 0 {
			o.RateLimiter = ratelimit.None
		} else {
			o.RateLimiter = ratelimit.NewTokenRateLimit(r.Quota)
		}
	})
}

// Options say which target to open.
type Options struct {
	// EndpointURL, when set, is a DynamoDB-compatible server
	// (cardapio serve, dynalite, DynamoDB Local).
	EndpointURL string
	// AWS selects Amazon DynamoDB through the standard configuration
	// chain (environment, shared files, SSO, instance roles).
	AWS bool
	// Region and Profile refine the configuration; Region defaults to
	// us-east-1 for the embedded engine and endpoints.
	Region, Profile string
	// Retry is the client's retry policy; the zero value is NoRetry.
	Retry Retry
	// Engine configures the embedded engine (ignored for other targets).
	Engine engine.Options
	// HTTPClient, when set, replaces the SDK's HTTP client for endpoints
	// and AWS (for example with more idle connections under load).
	HTTPClient *http.Client
}

// EmbeddedName is what reports call the embedded engine.
const EmbeddedName = "embedded engine"

// Target is an open connection to an engine.
type Target struct {
	Kind   Kind
	Name   string // what reports call it: EmbeddedName, the URL, "AWS us-east-1"
	Region string
	Retry  Retry
	Client *dynamodb.Client
	// Streams is the client of the same engine's streams API
	// (DynamoDBStreams_20120810), with the same retry policy.
	Streams *dynamodbstreams.Client
	// Engine is the embedded engine; nil for other kinds.
	Engine *engine.Engine
	// Setup counts what Load's writes took.
	Setup SetupStats
}

// Open connects to the target the options name: AWS when AWS is set, the
// endpoint when EndpointURL is set, otherwise a new embedded engine.
func Open(ctx context.Context, o Options) (*Target, error) {
	if o.AWS && o.EndpointURL != "" {
		return nil, errors.New("choose one target: --aws or --endpoint-url, not both")
	}
	if o.Retry.MaxAttempts == 0 {
		o.Retry = NoRetry
	}
	region := o.Region
	if region == "" && !o.AWS {
		region = "us-east-1"
	}
	switch {
	case o.AWS:
		var lo []func(*config.LoadOptions) error
		if region != "" {
			lo = append(lo, config.WithRegion(region))
		}
		if o.Profile != "" {
			lo = append(lo, config.WithSharedConfigProfile(o.Profile))
		}
		lo = append(lo, config.WithHTTPClient(bufferedBodies(o.HTTPClient)))
		cfg, err := config.LoadDefaultConfig(ctx, lo...)
		if err != nil {
			return nil, fmt.Errorf("load the AWS configuration: %w", err)
		}
		if cfg.Region == "" {
			return nil, errors.New("no AWS region: set --region or AWS_REGION")
		}
		cfg.Retryer = func() aws.Retryer { return o.Retry.Retryer() }
		return &Target{Kind: AWS, Name: "AWS " + cfg.Region, Region: cfg.Region, Retry: o.Retry,
			Client: dynamodb.NewFromConfig(cfg), Streams: dynamodbstreams.NewFromConfig(cfg)}, nil
	case o.EndpointURL != "":
		u, err := url.Parse(o.EndpointURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("endpoint URL %q: want http://host:port or https://host:port", o.EndpointURL)
		}
		opts := dynamodb.Options{
			Region:       region,
			BaseEndpoint: aws.String(strings.TrimRight(o.EndpointURL, "/")),
			Credentials:  endpointCredentials(),
			Retryer:      o.Retry.Retryer(),
			HTTPClient:   bufferedBodies(o.HTTPClient),
		}
		return &Target{Kind: Endpoint, Name: o.EndpointURL, Region: region, Retry: o.Retry,
			Client: dynamodb.New(opts), Streams: dynamodbstreams.New(dynamodbstreams.Options{Region: opts.Region,
				BaseEndpoint: opts.BaseEndpoint, Credentials: opts.Credentials, Retryer: o.Retry.Retryer(), HTTPClient: opts.HTTPClient})}, nil
	}
	eo := o.Engine
	if eo.Region == "" {
		eo.Region = region
	}
	e := engine.New(eo)
	return InProcess(e, region, o.Retry), nil
}

// InProcess returns a target whose client sends every request to e's HTTP
// handler in process: the SDK signs, serialises and decodes exactly as
// over a socket, without one.
func InProcess(e *engine.Engine, region string, r Retry) *Target {
	if region == "" {
		region = "us-east-1"
	}
	hc := &http.Client{Transport: handlerTransport{e.Handler()}}
	c := dynamodb.New(dynamodb.Options{
		Region:       region,
		BaseEndpoint: aws.String("http://embedded.cardapio.localhost"),
		Credentials:  credentials.NewStaticCredentialsProvider("cardapio", "cardapio", ""),
		Retryer:      r.Retryer(),
		HTTPClient:   hc,
	})
	s := dynamodbstreams.New(dynamodbstreams.Options{Region: region, BaseEndpoint: aws.String("http://embedded.cardapio.localhost"),
		Credentials: credentials.NewStaticCredentialsProvider("cardapio", "cardapio", ""), Retryer: r.Retryer(), HTTPClient: hc})
	return &Target{Kind: Embedded, Name: EmbeddedName, Region: region, Retry: r, Client: c, Streams: s, Engine: e}
}

// endpointCredentials uses the environment's keys when they are set (a
// server that verifies signatures needs real ones) and placeholders
// otherwise, as DynamoDB-compatible servers accept any.
func endpointCredentials() aws.CredentialsProvider {
	return aws.NewCredentialsCache(aws.CredentialsProviderFunc(func(ctx context.Context) (aws.Credentials, error) {
		env, err := config.NewEnvConfig()
		if err == nil && env.Credentials.HasKeys() {
			return env.Credentials, nil
		}
		return aws.Credentials{AccessKeyID: "cardapio", SecretAccessKey: "cardapio", Source: "placeholder"}, nil
	}))
}

// bufferedBodies wraps an HTTP client (the SDK's default when c is nil)
// so that each request goes out with its own copy of the body.
//
// The SDK closes a request's body stream as soon as the response
// arrives, while net/http's writer may still be making its last read of
// that body; the read fails, and the transport closes the connection
// under the response being read: "deserialization failed ... use of
// closed network connection" on about 1 large response in 300 over
// loopback (aws-sdk-go-v2 issues 1825 and 2737; the SDK's answer was to
// retry the error, which a run with retries off, or a measurement, cannot
// afford). A copy the SDK does not know of cannot be closed under the
// writer. Request bodies of DynamoDB are at most a few MB; the copy is
// one allocation per request.
func bufferedBodies(c *http.Client) bufferedDoer {
	if c == nil {
		return bufferedDoer{awshttp.NewBuildableClient()}
	}
	return bufferedDoer{c}
}

// httpDoer is the SDK's HTTP client interface.
type httpDoer interface {
	Do(*http.Request) (*http.Response, error)
}

type bufferedDoer struct{ inner httpDoer }

func (d bufferedDoer) Do(r *http.Request) (*http.Response, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return d.inner.Do(r)
	}
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	c := r.Clone(r.Context())
	c.Body = io.NopCloser(bytes.NewReader(b))
	c.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	c.ContentLength = int64(len(b))
	return d.inner.Do(c)
}

// handlerTransport is an http.RoundTripper that serves each request with
// an http.Handler in the calling goroutine.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if err := r.Context().Err(); err != nil {
		return nil, err
	}
	body := r.Body
	if body == nil {
		body = http.NoBody
	}
	// The handler reads the body as a server would; a request built by
	// the SDK may be re-sent on retry, so it is read here once.
	b, err := io.ReadAll(body)
	_ = body.Close()
	if err != nil {
		return nil, err
	}
	in := r.Clone(r.Context())
	in.Body = io.NopCloser(bytes.NewReader(b))
	in.ContentLength = int64(len(b))
	in.RemoteAddr = "127.0.0.1:0"
	in.RequestURI = r.URL.RequestURI()
	if in.Host == "" {
		in.Host = r.URL.Host
	}
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, in)
	res := rec.Result()
	res.Request = r
	return res, nil
}

// Close releases the target. The embedded engine's data is gone with it.
func (t *Target) Close() error { return nil }
