DROP TABLE stale_reports;
