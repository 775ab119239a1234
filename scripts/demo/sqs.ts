// Demo traffic on the local SQS endpoint (ElasticMQ): a payments queue with a redrive
// policy, a producer, and a consumer that fails some messages until they reach the DLQ.
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
  SendMessageCommand,
} from "@aws-sdk/client-sqs";

export async function startSqsDemo(endpoint = process.env.SQS_ENDPOINT ?? "http://127.0.0.1:9324"): Promise<() => Promise<void>> {
  const sqs = new SQSClient({ region: "us-east-1", endpoint, credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  const dlq = await sqs.send(new CreateQueueCommand({ QueueName: "demo-payments-dlq" }));
  const dlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ["QueueArn"] }))).Attributes!.QueueArn;
  const queue = await sqs.send(
    new CreateQueueCommand({
      QueueName: "demo-payments",
      Attributes: { VisibilityTimeout: "2", RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 3 }) },
    }),
  );
  let running = true;
  const producer = setInterval(() => {
    const body = JSON.stringify({ payment: Math.floor(Math.random() * 1e6), amount: Math.round(Math.random() * 10_000) / 100 });
    void sqs.send(new SendMessageCommand({ QueueUrl: queue.QueueUrl, MessageBody: body })).catch(() => undefined);
  }, 500);
  const consumer = (async () => {
    while (running) {
      const page = await sqs
        .send(new ReceiveMessageCommand({ QueueUrl: queue.QueueUrl, MaxNumberOfMessages: 5, WaitTimeSeconds: 1 }))
        .catch(() => ({ Messages: [] }));
      for (const message of page.Messages ?? []) {
        // One in five is poison: never deleted, so SQS moves it to the DLQ after 3 receives.
        if (message.Body && JSON.parse(message.Body).payment % 5 === 0) continue;
        await sqs.send(new DeleteMessageCommand({ QueueUrl: queue.QueueUrl, ReceiptHandle: message.ReceiptHandle })).catch(() => undefined);
      }
    }
  })();
  console.log("demo: sqs: demo-payments (redrive policy, 1 in 5 messages poisoned) and demo-payments-dlq");
  return async () => {
    running = false;
    clearInterval(producer);
    await consumer;
    sqs.destroy();
  };
}
