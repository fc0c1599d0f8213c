DROP TABLE reads_kept_since;
DROP TABLE repo_upkeep;
DROP TABLE key_reads;
