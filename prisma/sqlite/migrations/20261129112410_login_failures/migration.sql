-- CreateTable
CREATE TABLE "LoginFailure" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "count" INTEGER NOT NULL,
    "firstAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "LoginFailure_firstAt_idx" ON "LoginFailure"("firstAt");

