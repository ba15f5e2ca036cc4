# Debian's PostgreSQL 15 for machines without a registry: BASE is a debootstrap
# root filesystem with postgresql-15 (`lats image postgres`). It reads the
# official postgres image's variables (POSTGRES_USER, POSTGRES_PASSWORD or
# POSTGRES_PASSWORD_FILE, POSTGRES_DB, PGDATA), so deploy/compose.yaml runs it
# unchanged in place of postgres:16-bookworm.
ARG BASE
FROM ${BASE}
COPY deploy/offline/postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
RUN rm -rf /var/lib/postgresql/15 /etc/postgresql/15 \
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql \
 && chmod 0755 /usr/local/bin/postgres-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:$PATH \
    PGDATA=/var/lib/postgresql/data
USER postgres
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["postgres-entrypoint.sh"]
