-- AlterTable
ALTER TABLE "travellers" ADD COLUMN     "version" BIGINT NOT NULL DEFAULT 0;
