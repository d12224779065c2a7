// Command loadraw is the baseline of bench/load.sh: a raw aws-sdk-go-v2
// loop sending GetItem requests to a DynamoDB-compatible endpoint as fast
// as a fixed number of goroutines can, each request sent once, over the
// keys of the items a table holds, asking for the consumed capacity as
// the load generator does. It prints the requests a second it completed,
// the requests and the failures.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func main() {
	endpoint := flag.String("endpoint-url", "", "the server")
	table := flag.String("table", "", "the table")
	prefix := flag.String("pk-prefix", "", "read only items whose partition key starts so")
	conc := flag.Int("concurrency", 64, "requests in flight")
	dur := flag.Duration("duration", 10*time.Second, "how long to send")
	flag.Parse()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConns: *conc * 2, MaxIdleConnsPerHost: *conc * 2}}
	c := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(*endpoint), HTTPClient: hc,
		Credentials: credentials.NewStaticCredentialsProvider("bench", "bench", ""),
		Retryer:     retry.NewStandard(func(o *retry.StandardOptions) { o.MaxAttempts = 1 })})
	ctx := context.Background()
	var keys []map[string]types.AttributeValue
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: table, ProjectionExpression: aws.String("PK, SK")})
	for p.HasMorePages() && len(keys) < 20000 {
		page, err := p.NextPage(ctx)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, it := range page.Items {
			if pk, ok := it["PK"].(*types.AttributeValueMemberS); ok && len(pk.Value) >= len(*prefix) && pk.Value[:len(*prefix)] == *prefix {
				keys = append(keys, it)
			}
		}
	}
	if len(keys) == 0 {
		fmt.Fprintln(os.Stderr, "no items")
		os.Exit(1)
	}
	var done, failed atomic.Int64
	end := time.Now().Add(*dur)
	start := time.Now()
	var wg sync.WaitGroup
	for g := range *conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; time.Now().Before(end); i += *conc {
				_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: table, Key: keys[i%len(keys)], ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
				if err != nil {
					failed.Add(1)
					continue
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	el := time.Since(start).Seconds()
	fmt.Printf("%.0f %d %d\n", float64(done.Load())/el, done.Load(), failed.Load())
}
