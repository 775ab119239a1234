-- CreateTable
CREATE TABLE "LoginFailure" (
    "key" TEXT NOT NULL,
    "count" INTEGER NOT NULL,
    "firstAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "LoginFailure_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "LoginFailure_firstAt_idx" ON "LoginFailure"("firstAt");

