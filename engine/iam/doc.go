// Package iam reads IAM identity-based policy documents and decides
// requests with them, as AWS IAM does for the part of its language that
// DynamoDB data models depend on.
//
// Parse reads a policy document strictly (unknown elements, a Principal,
// an unsupported condition operator or a malformed ARN are positioned
// errors, never ignored). Evaluate decides one request, an action on a
// resource with its condition context, against a principal's policies:
// an explicit Deny in any statement that matches wins, otherwise an Allow
// that matches allows, otherwise the request is implicitly denied.
//
// Supported: Effect Allow and Deny; Action and NotAction with * and ?
// wildcards (case-insensitive); Resource and NotResource, ARNs matched
// segment by segment with wildcards; Condition with the String, Numeric,
// Bool, Arn, IpAddress and Null operators, their IfExists forms, and the
// ForAllValues and ForAnyValue set qualifiers; policy variables
// (${aws:PrincipalTag/KEY}, ${aws:username}, any single-valued key,
// ${key, 'default'}, ${*} ${?} ${$}) in resources and condition values
// of documents of Version 2012-10-17, their values always literal.
//
// A condition key can be unknown to the caller (the engine could not read
// the request's keys, say): an Allow statement whose conditions depend on
// it does not apply, a Deny statement does. Not supported: resource-based
// policies, permission boundaries, session policies, the Date operators.
package iam
