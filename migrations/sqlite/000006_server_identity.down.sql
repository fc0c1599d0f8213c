DROP TABLE server_identity;
