DROP TABLE search_backfill;
DROP TABLE search_links_fts;
DROP TABLE search_links;
DROP TABLE search_fts;
DROP TABLE search_docs;
