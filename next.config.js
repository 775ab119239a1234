// Next.js configuration. Broker clients and the database driver stay out of the bundle:
// they are loaded by Node.js at run time, as server-side packages.
/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  serverExternalPackages: ["better-sqlite3", "ioredis", "kafkajs", "pg", "@prisma/client", "@aws-sdk/client-sqs"],
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "X-Frame-Options", value: "DENY" },
          { key: "Referrer-Policy", value: "same-origin" },
        ],
      },
    ];
  },
};

export default nextConfig;
