// Demo traffic on the local RabbitMQ: a work queue with a dead-letter exchange, a producer,
// and consumers that reject one message in ten.
import amqp from "amqplib";

export async function startRabbitMqDemo(url = process.env.RABBITMQ_URL ?? "amqp://guest:guest@127.0.0.1:5672"): Promise<() => Promise<void>> {
  const connection = await amqp.connect(url, { clientProperties: { connection_name: "varal demo" } });
  const channel = await connection.createConfirmChannel();
  await channel.assertExchange("demo-work.dlx", "direct", { durable: true });
  await channel.assertQueue("demo-work.dlq", { durable: true });
  await channel.bindQueue("demo-work.dlq", "demo-work.dlx", "demo-work");
  await channel.assertQueue("demo-work", { durable: true, arguments: { "x-dead-letter-exchange": "demo-work.dlx", "x-dead-letter-routing-key": "demo-work" } });
  let sequence = 0;
  const producer = setInterval(() => {
    const id = `job-${++sequence}`;
    channel.sendToQueue("demo-work", Buffer.from(JSON.stringify({ job: id, at: new Date().toISOString() })), { messageId: id, persistent: true, timestamp: Math.floor(Date.now() / 1000) });
  }, 250);
  const consumer = await connection.createChannel();
  await consumer.prefetch(5);
  await consumer.consume("demo-work", (message) => {
    if (!message) return;
    setTimeout(() => {
      if (Math.random() < 0.1) consumer.nack(message, false, false);
      else consumer.ack(message);
    }, 300);
  });
  console.log("demo: rabbitmq: demo-work (dead-letters to demo-work.dlq through demo-work.dlx; 1 in 10 rejected)");
  return async () => {
    clearInterval(producer);
    await channel.waitForConfirms().catch(() => undefined);
    await connection.close().catch(() => undefined);
  };
}
