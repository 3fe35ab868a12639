CREATE TABLE "bulk_item_documents" (
	"bulk_id" text NOT NULL,
	"item_index" integer NOT NULL,
	"issuance_key" text NOT NULL,
	CONSTRAINT "bulk_item_documents_bulk_id_item_index_pk" PRIMARY KEY("bulk_id","item_index"),
	CONSTRAINT "bulk_item_documents_index" CHECK ("bulk_item_documents"."item_index" between 0 and 99)
);
