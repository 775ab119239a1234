// Demo traffic on the local Kafka: an orders topic with a producer whose keys crowd one
// partition, a fulfilment group that falls behind and dead-letters one order in ten to
// demo-orders.DLQ (with the headers a DLQ producer puts), and an analytics group that
// stops after a while, leaving its lag to grow.
import { Kafka, logLevel, Partitioners, type Consumer } from "kafkajs";

const ORDERS = "demo-orders";
const DLQ = `${ORDERS}.DLQ`;

export async function startKafkaDemo(brokers = (process.env.KAFKA_BROKERS ?? "127.0.0.1:9092").split(",")): Promise<() => Promise<void>> {
  const kafka = new Kafka({ clientId: "varal-demo", brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const existing = new Set(await admin.listTopics());
  const missing = [ORDERS, DLQ].filter((topic) => !existing.has(topic));
  if (missing.length > 0) await admin.createTopics({ topics: missing.map((topic) => ({ topic, numPartitions: 3 })), waitForLeaders: true });
  await admin.disconnect();

  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  let order = 0;
  const producing = setInterval(() => {
    const messages = Array.from({ length: 4 }, () => {
      order++;
      // Most orders come from one big customer: its key sends them all to one partition.
      const customer = Math.random() < 0.7 ? "customer-big" : `customer-${Math.floor(Math.random() * 50)}`;
      return { key: customer, value: JSON.stringify({ order, customer, amount: Math.round(Math.random() * 10_000) / 100 }) };
    });
    void producer.send({ topic: ORDERS, messages }).catch(() => undefined);
  }, 250);

  const consumers: Consumer[] = [];
  const fulfilment = kafka.consumer({ groupId: "demo-fulfilment" });
  consumers.push(fulfilment);
  await fulfilment.connect();
  await fulfilment.subscribe({ topic: ORDERS, fromBeginning: true });
  await fulfilment.run({
    eachMessage: async ({ topic, partition, message }) => {
      // Slower than the producer: 10 a second against 16 written.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const body = JSON.parse(message.value?.toString() ?? "{}") as { order?: number };
      if ((body.order ?? 0) % 10 === 0) {
        await producer.send({
          topic: DLQ,
          messages: [
            {
              key: message.key,
              value: message.value,
              headers: { "x-original-topic": topic, "x-original-partition": String(partition), "x-exception-message": `order ${body.order}: card declined by the issuer` },
            },
          ],
        });
      }
    },
  });

  const analytics = kafka.consumer({ groupId: "demo-analytics" });
  consumers.push(analytics);
  await analytics.connect();
  await analytics.subscribe({ topic: ORDERS, fromBeginning: true });
  await analytics.run({ eachMessage: async () => undefined });
  // After a minute the analytics job "crashes": its offsets stay while the topic grows.
  const stopping = setTimeout(() => void analytics.disconnect().catch(() => undefined), 60_000);

  console.log(`demo: kafka: ${ORDERS} (a hot key), groups demo-fulfilment (falls behind, dead-letters 1 in 10 to ${DLQ}) and demo-analytics (stops after a minute)`);
  return async () => {
    clearInterval(producing);
    clearTimeout(stopping);
    for (const consumer of consumers) await consumer.disconnect().catch(() => undefined);
    await producer.disconnect();
  };
}
