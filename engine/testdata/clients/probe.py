"""Runs a plan of DynamoDB requests with boto3 and prints each answer.

Usage: python3 probe.py PLAN.json ENDPOINT REGION

The plan is a JSON list of probes, each {"name", "op" (put, get or
query), "key", "secret" (the access key to sign with; "unsigned": true
to send no signature), "region" (REGION when absent), "table", and
"item" (put), "keyValue" (get) or "condition", "names" and "values"
(query)}, attribute values in DynamoDB's JSON
(binary values in base64). Each answer is printed as one JSON line:
{"name", "code" (the error code, "" on success), "item" (get), "count"
(query)}. The requests are sent once each, without retries.
"""

import base64
import json
import sys

import boto3
import botocore
from botocore.config import Config


def to_sdk(v):
    (t, x), = v.items()
    if t == "B":
        return {"B": base64.b64decode(x)}
    if t == "BS":
        return {"BS": [base64.b64decode(m) for m in x]}
    if t == "L":
        return {"L": [to_sdk(m) for m in x]}
    if t == "M":
        return {"M": {k: to_sdk(m) for k, m in x.items()}}
    return {t: x}


def from_sdk(v):
    (t, x), = v.items()
    if t == "B":
        return {"B": base64.b64encode(x).decode()}
    if t == "BS":
        return {"BS": [base64.b64encode(m).decode() for m in x]}
    if t == "L":
        return {"L": [from_sdk(m) for m in x]}
    if t == "M":
        return {"M": {k: from_sdk(m) for k, m in x.items()}}
    return {t: x}


def item(m):
    return {k: to_sdk(v) for k, v in m.items()}


def main():
    plan_path, endpoint, region = sys.argv[1:4]
    with open(plan_path) as f:
        plan = json.load(f)
    for p in plan:
        cfg = Config(retries={"total_max_attempts": 1, "mode": "standard"})
        if p.get("unsigned"):
            cfg = cfg.merge(Config(signature_version=botocore.UNSIGNED))
        db = boto3.client("dynamodb", endpoint_url=endpoint, region_name=p.get("region") or region,
                          aws_access_key_id=p.get("key") or "none",
                          aws_secret_access_key=p.get("secret") or "none", config=cfg)
        out = {"name": p["name"], "code": ""}
        try:
            if p["op"] == "put":
                db.put_item(TableName=p["table"], Item=item(p["item"]))
            elif p["op"] == "get":
                r = db.get_item(TableName=p["table"], Key=item(p["keyValue"]), ConsistentRead=True)
                if "Item" in r:
                    out["item"] = {k: from_sdk(v) for k, v in r["Item"].items()}
            elif p["op"] == "query":
                r = db.query(TableName=p["table"], KeyConditionExpression=p["condition"],
                             ExpressionAttributeNames=p.get("names") or {},
                             ExpressionAttributeValues=item(p["values"]))
                out["count"] = r["Count"]
        except botocore.exceptions.ClientError as e:
            out["code"] = e.response["Error"]["Code"]
        print(json.dumps(out), flush=True)


main()
