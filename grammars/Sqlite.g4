/* SQLite 3 — what differs from Core.g4. Written for parrot. */
grammar Sqlite;
options { caseInsensitive = true; }
import Core;

statementExt
    : 'PRAGMA' qualifiedName (('=' (signedNumber | identifier | STRING)) | '(' (signedNumber | identifier | STRING) ')')?
    | 'VACUUM' identifier?
    | 'ATTACH' 'DATABASE'? expr 'AS' identifier
    | 'DETACH' 'DATABASE'? identifier
    | 'REINDEX' qualifiedName?
    | 'ANALYZE' qualifiedName?
    | ('SAVEPOINT' | 'RELEASE' 'SAVEPOINT'?) identifier
    ;
transactionStatement
    : 'BEGIN' ('DEFERRED' | 'IMMEDIATE' | 'EXCLUSIVE')? 'TRANSACTION'?
    | ('COMMIT' | 'END') 'TRANSACTION'?
    | 'ROLLBACK' 'TRANSACTION'? ('TO' 'SAVEPOINT'? identifier)?
    ;
explainStatement : 'EXPLAIN' ('QUERY' 'PLAN')? statement ;
tableOption : 'WITHOUT' IDENTIFIER | 'STRICT' | ',' ;

limitClause : 'LIMIT' expr (('OFFSET' | ',') expr)? ;
tableHint : 'INDEXED' 'BY' identifier | 'NOT' 'INDEXED' ;
joinType : 'INNER' | ('LEFT' | 'RIGHT' | 'FULL') 'OUTER'? ;
joinConstraint : joinCondition? ;

comparisonExt : '==' ;
likeExt : 'GLOB' | 'REGEXP' | 'MATCH' ;
postfixExt : 'ISNULL' | 'NOTNULL' | 'NOT' 'NULL' ;
binaryExt : 'IS' 'NOT'? ('DISTINCT' 'FROM')? | '->' | '->>' ;
primaryExt : PARAMETER | 'RAISE' '(' ('IGNORE' | ('ROLLBACK' | 'ABORT' | 'FAIL') ',' STRING) ')' ;
extractExpression : EXTENSION_POINT ;
literal
    : NUMBER | STRING | 'NULL' | 'TRUE' | 'FALSE' | BLOB
    | 'CURRENT_DATE' | 'CURRENT_TIME' | 'CURRENT_TIMESTAMP'
    ;
quotedIdentifier : DQ_TEXT | BQ_TEXT | BRACKET_TEXT ;
functionKeywordExt : 'GLOB' | 'LIKE' | 'MATCH' | 'REGEXP' ;
columnConstraintExt : 'ON' 'CONFLICT' ('ROLLBACK' | 'ABORT' | 'FAIL' | 'IGNORE' | 'REPLACE') ;
onConflictClause
    : 'ON' 'CONFLICT' ('(' indexColumn (',' indexColumn)* ')' whereClause?)?
      'DO' ('NOTHING' | 'UPDATE' 'SET' assignment (',' assignment)* whereClause?)
    ;

nonReserved
    : nonReservedCore | 'PRAGMA' | 'VACUUM' | 'ATTACH' | 'DETACH' | 'REINDEX' | 'SAVEPOINT'
    | 'RELEASE' | 'EXCLUSIVE' | 'WITHOUT' | 'STRICT' | 'INDEXED' | 'GLOB' | 'REGEXP'
    | 'RAISE' | 'CONFLICT' | 'END' | 'CAST'
    ;

BLOB : 'X' '\'' HEX_DIGIT* '\'' ;
BQ_TEXT : '`' (~'`' | '``')* '`' ;
BRACKET_TEXT : '[' ~']'* ']' ;
PARAMETER : '?' DIGIT* | [:@$] IDENT_PART+ ;
fragment IDENT_PART : [A-Z_0-9$] | [\u0080-\uFFFE] ;
