#ifndef TENANTMIGRATOR_CLIBPQ_SHIM_H
#define TENANTMIGRATOR_CLIBPQ_SHIM_H

#include <libpq-fe.h>
#include <poll.h>

// Swift cannot import character-literal macros such as PG_DIAG_SQLSTATE ('C'),
// so the diagnostic field codes are re-exported here as integer constants.
static const int TM_PG_DIAG_SEVERITY = 'S';
static const int TM_PG_DIAG_SEVERITY_NONLOCALIZED = 'V';
static const int TM_PG_DIAG_SQLSTATE = 'C';
static const int TM_PG_DIAG_MESSAGE_PRIMARY = 'M';
static const int TM_PG_DIAG_MESSAGE_DETAIL = 'D';
static const int TM_PG_DIAG_MESSAGE_HINT = 'H';
static const int TM_PG_DIAG_STATEMENT_POSITION = 'P';
static const int TM_PG_DIAG_INTERNAL_POSITION = 'p';
static const int TM_PG_DIAG_INTERNAL_QUERY = 'q';
static const int TM_PG_DIAG_CONTEXT = 'W';
static const int TM_PG_DIAG_SCHEMA_NAME = 's';
static const int TM_PG_DIAG_TABLE_NAME = 't';
static const int TM_PG_DIAG_COLUMN_NAME = 'c';
static const int TM_PG_DIAG_DATATYPE_NAME = 'd';
static const int TM_PG_DIAG_CONSTRAINT_NAME = 'n';
static const int TM_PG_DIAG_SOURCE_FILE = 'F';
static const int TM_PG_DIAG_SOURCE_LINE = 'L';
static const int TM_PG_DIAG_SOURCE_FUNCTION = 'R';

#endif
