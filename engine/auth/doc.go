// Package auth reads and checks the AWS Signature Version 4 of requests
// to the engine's server, and the identities that may sign them.
//
// Every DynamoDB request is signed: Parse reads the Authorization header
// (access key, date, region, service, signed headers, signature) and
// refuses requests without one, or with a malformed one, with the
// exceptions and wording DynamoDB uses (MissingAuthenticationTokenException,
// IncompleteSignatureException). That is all a server that accepts any
// credentials, as DynamoDB Local does, needs: the region the client signed
// for, which scopes its tables.
//
// A Keys file (LoadKeys) lists access keys with their secret, account,
// principal and tags; Keys.Verify then recomputes each request's
// signature from the headers it names and the body, and refuses unknown
// keys (UnrecognizedClientException), wrong secrets and tampered requests
// (InvalidSignatureException, with the canonical request and string to
// sign AWS would show), and clocks more than 15 minutes apart. Signing
// keys are derived once per key, day and region.
package auth
