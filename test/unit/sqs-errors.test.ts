// The SDK's errors turned into what an operator should check. Access denied cannot be
// produced by ElasticMQ (it accepts any credentials), so these are the SDK's error shapes.
import { describe, expect, it } from "vitest";
import { describeSqsError } from "@/server/brokers/sqs/adapter";

function sdkError(name: string, message: string): Error {
  return Object.assign(new Error(message), { name });
}

describe("SQS error descriptions", () => {
  it("says to check credentials and IAM on access denied", () => {
    expect(describeSqsError(sdkError("AccessDenied", "Access to the resource https://sqs.us-east-1.amazonaws.com/1/q is denied."))).toMatch(
      /^access denied \(.*\): check the credentials .* and their IAM permissions$/,
    );
    expect(describeSqsError(sdkError("InvalidClientTokenId", "The security token included in the request is invalid."))).toMatch(/^access denied/);
  });

  it("says to check endpoint and region when unreachable, and names a deleted queue", () => {
    expect(describeSqsError(sdkError("Error", "getaddrinfo ENOTFOUND sqs.nowhere-1.amazonaws.com"))).toMatch(/not reachable .*: check the broker's endpoint and region$/);
    expect(describeSqsError(sdkError("QueueDoesNotExist", "The specified queue does not exist."))).toMatch(/^a queue no longer exists/);
    expect(describeSqsError(sdkError("CredentialsProviderError", "Could not load credentials from any providers"))).toMatch(/^no credentials found/);
  });
});
