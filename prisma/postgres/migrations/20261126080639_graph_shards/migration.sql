-- CreateTable
CREATE TABLE "GraphShard" (
    "id" SERIAL NOT NULL,
    "buildId" INTEGER NOT NULL,
    "plan" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "facet" TEXT NOT NULL DEFAULT '',
    "part" INTEGER NOT NULL DEFAULT 0,
    "data" BYTEA NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "GraphShard_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "GraphShard_buildId_plan_kind_facet_part_key" ON "GraphShard"("buildId", "plan", "kind", "facet", "part");

-- AddForeignKey
ALTER TABLE "GraphShard" ADD CONSTRAINT "GraphShard_buildId_fkey" FOREIGN KEY ("buildId") REFERENCES "Build"("id") ON DELETE CASCADE ON UPDATE CASCADE;
