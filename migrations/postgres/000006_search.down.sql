DROP TABLE search_backfill;
DROP TABLE search_links;
DROP INDEX entries_search;
ALTER TABLE entries DROP COLUMN search;
DROP FUNCTION teammem_search_vector(text, text, text);
