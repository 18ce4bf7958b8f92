/* Trino / Presto — what differs from Core.g4. Written for parrot. */
grammar Trino;
options { caseInsensitive = true; }
import Core;

statementExt
    : 'USE' qualifiedName
    | ('DESCRIBE' | 'DESC') ('INPUT' | 'OUTPUT')? qualifiedName
    | 'SHOW' ~';'+
    | ('SET' | 'RESET') 'SESSION' ~';'+
    | ('GRANT' | 'REVOKE' | 'CALL' | 'PREPARE' | 'EXECUTE' | 'DEALLOCATE' | 'ANALYZE' | 'COMMENT') ~';'+
    | 'CREATE' ('SCHEMA' | 'ROLE' | orReplace? 'FUNCTION') ~';'+
    ;
explainStatement : 'EXPLAIN' 'ANALYZE'? 'VERBOSE'? ('(' ~')'* ')')? statement ;
limitClause
    : 'LIMIT' (expr | 'ALL')
    | offsetClause ('LIMIT' (expr | 'ALL') | fetchClause)?
    | fetchClause
    ;
offsetClause : 'OFFSET' expr ('ROW' | 'ROWS')? ;
groupByTail : EXTENSION_POINT ;
tableSuffix : 'TABLESAMPLE' ('BERNOULLI' | 'SYSTEM') '(' expr ')' | 'FOR' ('TIMESTAMP' | 'VERSION') 'AS' 'OF' expr ;
tablePrimaryExt
    : 'UNNEST' '(' expr (',' expr)* ')' ('WITH' 'ORDINALITY')? (tableAlias columnList?)?
    | 'TABLE' '(' functionCall ')' (tableAlias columnList?)?
    ;
tableFunction : 'LATERAL'? functionName '(' (functionArg (',' functionArg)*)? ')' ;
createTable
    : 'CREATE' orReplace? 'TABLE' ifNotExists? tableName
      ( '(' tableElement (',' tableElement)* ')' tableOption* ('AS' query ('WITH' 'NO'? 'DATA')?)?
      | columnList? tableOption* 'AS' '('? query ')'? ('WITH' 'NO'? 'DATA')?
      )
    ;
tableOption : 'COMMENT' STRING | 'WITH' '(' identifier '=' expr (',' identifier '=' expr)* ')' ;

binaryExt : '->' | 'IS' 'NOT'? 'DISTINCT' 'FROM' ;
postfixExt : '[' expr ']' | 'AT' 'TIME' 'ZONE' expr | '.' identifier ;
primaryExt
    : 'ARRAY' '[' (expr (',' expr)*)? ']'
    | 'ROW' '(' expr (',' expr)* ')'
    | '?'
    | 'TRY' '(' expr ')'
    ;
specialFunction
    : 'SUBSTRING' '(' expr ('FROM' expr ('FOR' expr)? | ',' expr (',' expr)?) ')'
    | 'TRIM' '(' ('BOTH' | 'LEADING' | 'TRAILING')? (expr? 'FROM')? expr ')'
    | 'POSITION' '(' expr 'IN' expr ')'
    | ('CURRENT_DATE' | 'CURRENT_TIME' | 'CURRENT_TIMESTAMP' | 'LOCALTIME' | 'LOCALTIMESTAMP' | 'CURRENT_USER' | 'CURRENT_CATALOG' | 'CURRENT_SCHEMA') ('(' NUMBER ')')?
    | 'NORMALIZE' '(' expr (',' identifier)? ')'
    | 'JSON_EXISTS' '(' ~')'* ')'
    ;
castFunction : 'CAST' | 'TRY_CAST' ;
literal
    : NUMBER | STRING | 'NULL' | 'TRUE' | 'FALSE' | UNICODE_STRING | BINARY_STRING
    | ('DATE' | 'TIME' | 'TIMESTAMP' | 'DECIMAL' | 'REAL' | 'DOUBLE' | 'JSON' | 'CHAR' | 'VARCHAR' | 'INTEGER' | 'BIGINT') STRING
    | 'INTERVAL' ('+' | '-')? STRING intervalUnit ('TO' intervalUnit)?
    ;
dataType
    : ('ARRAY' | 'MAP') '(' dataType (',' dataType)? ')'
    | 'ROW' '(' identifier? dataType (',' identifier? dataType)* ')'
    | typeName ('(' typeParameter (',' typeParameter)* ')')? (('WITH' | 'WITHOUT') 'TIME' 'ZONE')?
    ;
typeName : identifier+ | 'DECIMAL' | 'REAL' | 'DOUBLE' 'PRECISION'? | 'JSON' | 'CHAR' | 'VARCHAR' | 'INTEGER' | 'BIGINT' ;
functionKeywordExt : 'IF' | 'LEFT' | 'RIGHT' | 'REPLACE' | 'MAP' | 'TRY' | 'DATE' | 'JSON' | 'CHAR' | 'VARCHAR' ;
functionArg : expr ;

nonReserved
    : nonReservedCore | 'USE' | 'DESCRIBE' | 'INPUT' | 'OUTPUT' | 'SHOW' | 'RESET' | 'SESSION' | 'GRANT'
    | 'REVOKE' | 'CALL' | 'PREPARE' | 'EXECUTE' | 'DEALLOCATE' | 'ROLE' | 'FUNCTION' | 'BERNOULLI' | 'SYSTEM'
    | 'VERSION' | 'OF' | 'ORDINALITY' | 'DATA' | 'MAP' | 'ROW' | 'TRY' | 'SUBSTRING' | 'TRIM'
    | 'POSITION' | 'LOCALTIME' | 'LOCALTIMESTAMP' | 'CURRENT_CATALOG' | 'CURRENT_SCHEMA' | 'NORMALIZE'
    | 'JSON_EXISTS' | 'TRY_CAST' | 'DECIMAL' | 'REAL' | 'DOUBLE' | 'JSON' | 'CHAR' | 'VARCHAR' | 'INTEGER'
    | 'BIGINT' | 'PRECISION' | 'ZONE' | 'AT' | 'COMMENT' | 'ANALYZE' | 'TABLE' | 'VIEW' | 'KEY' | 'OUTER'
    ;

UNICODE_STRING : 'U&' '\'' (~'\'' | '\'\'')* '\'' ;
BINARY_STRING : 'X' '\'' [0-9A-F ]* '\'' ;
fragment IDENT_PART : [A-Z_0-9] | [\u0080-\uFFFE] ;
