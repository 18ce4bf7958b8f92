/* PostgreSQL — what differs from Core.g4. Written for parrot. */
grammar Postgres;
options { caseInsensitive = true; }
import Core;

statementExt
    : 'SET' ('SESSION' | 'LOCAL')? qualifiedName ('TO' | '=') (expr (',' expr)* | 'DEFAULT')
    | 'SET' ('SESSION' | 'LOCAL')? 'TIME' 'ZONE' (expr | 'LOCAL' | 'DEFAULT')
    | 'RESET' (qualifiedName | 'ALL')
    | 'SHOW' (qualifiedName | 'ALL')
    | 'CREATE' 'SCHEMA' ifNotExists? identifier
    | 'CREATE' 'DATABASE' identifier ~';'*
    | 'CREATE' 'EXTENSION' ifNotExists? identifier
    | 'VACUUM' ('FULL' | 'ANALYZE' | 'VERBOSE')* tableName?
    | 'ANALYZE'
    | 'TABLE' tableName
    | 'CREATE' orReplace? ('FUNCTION' | 'PROCEDURE') qualifiedName '(' (routineParam (',' routineParam)*)? ')'
      ('RETURNS' ('TABLE' '(' routineParam (',' routineParam)* ')' | dataType))? routineOption*
    | 'DO' ('LANGUAGE' identifier)? (STRING | DOLLAR_STRING)
    | 'CALL' qualifiedName '(' (functionArg (',' functionArg)*)? ')'
    | 'CREATE' 'TYPE' qualifiedName 'AS' ('ENUM' '(' (STRING (',' STRING)*)? ')' | '(' columnDefinition (',' columnDefinition)* ')')
    | 'DROP' ('FUNCTION' | 'PROCEDURE' | 'TYPE' | 'EXTENSION' | 'TRIGGER') ifExists? qualifiedName
      ('(' (routineParam (',' routineParam)*)? ')')? ('ON' tableName)? ('CASCADE' | 'RESTRICT')?
    | ('GRANT' | 'REVOKE') ~';'+
    | 'COPY' (tableName columnList? | '(' query ')') ('FROM' | 'TO') ~';'*
    | 'CREATE' orReplace? 'TRIGGER' identifier ~';'+
    | 'CREATE' 'SEQUENCE' ifNotExists? qualifiedName ~';'*
    | 'LOCK' 'TABLE'? tableName ~';'*
    | 'REFRESH' 'MATERIALIZED' 'VIEW' qualifiedName
    | ('FETCH' | 'MOVE') ~';'*
    | 'CLOSE' (identifier | 'ALL')
    | 'DECLARE' identifier ~';'*
    | 'COMMENT' 'ON' ~'IS'+ 'IS' (STRING | DOLLAR_STRING | 'NULL')
    | 'ALTER' ('TYPE' | 'INDEX' | 'VIEW' | 'SEQUENCE' | 'SCHEMA' | 'FUNCTION' | 'PROCEDURE' | 'DATABASE'
              | 'ROLE' | 'USER' | 'MATERIALIZED' 'VIEW' | 'EXTENSION' | 'TRIGGER' | 'DOMAIN') ~';'+
    | 'ALTER' 'TABLE' ifExists? 'ONLY'? tableName 'SET' ~';'+
    | 'ANALYZE' 'VERBOSE'? tableName (',' tableName)*
    | 'CREATE' temporary? 'TABLE' ifNotExists? tableName 'PARTITION' 'OF' ~';'+
    ;
routineParam : ('IN' | 'OUT' | 'INOUT' | 'VARIADIC')? (identifier dataType | dataType) (('DEFAULT' | '=') expr)? ;
routineOption
    : 'LANGUAGE' (identifier | STRING)
    | 'AS' (STRING | DOLLAR_STRING) (',' (STRING | DOLLAR_STRING))?
    | 'IMMUTABLE' | 'STABLE' | 'VOLATILE' | 'STRICT' | 'LEAKPROOF' | 'NOT' 'LEAKPROOF'
    | 'CALLED' 'ON' 'NULL' 'INPUT' | 'RETURNS' 'NULL' 'ON' 'NULL' 'INPUT'
    | 'SECURITY' ('DEFINER' | 'INVOKER') | 'PARALLEL' identifier | ('COST' | 'ROWS') NUMBER
    | 'SET' qualifiedName ('TO' | '=') expr (',' expr)*
    ;
createIndex
    : 'CREATE' 'UNIQUE'? 'INDEX' 'CONCURRENTLY'? ifNotExists? qualifiedName? 'ON' 'ONLY'? tableName
      ('USING' identifier)? '(' orderItem (',' orderItem)* ')' ('INCLUDE' columnList)?
      ('WITH' '(' ~')'* ')')? whereClause?
    ;
truncateStatement
    : 'TRUNCATE' 'TABLE'? 'ONLY'? tableName (',' tableName)* (('RESTART' | 'CONTINUE') 'IDENTITY')? ('CASCADE' | 'RESTRICT')?
    ;
alterTable : 'ALTER' 'TABLE' ifExists? 'ONLY'? tableName alterAction (',' alterAction)* ;
dropStatement
    : 'DROP' ('TABLE' | 'VIEW' | 'MATERIALIZED' 'VIEW' | 'INDEX' | 'SCHEMA' | 'DATABASE' | 'SEQUENCE')
      'CONCURRENTLY'? ifExists? tableName (',' tableName)* ('CASCADE' | 'RESTRICT')?
    ;
commonTableExpression
    : identifier columnList? 'AS' ('NOT'? 'MATERIALIZED')?
      '(' (query | insertStatement | updateStatement | deleteStatement | mergeStatement) ')'
    ;
selectList : (selectItem (',' selectItem)*)? ;
selectItem
    : '*'
    | qualifiedName '.' '*'
    | expr ('AS'? aliasName | bareLabel)?
    ;
bareLabel
    : 'AND' | 'OR' | 'NOT' | 'IN' | 'IS' | 'LIKE' | 'ILIKE' | 'SIMILAR' | 'BETWEEN' | 'CASE' | 'WHEN'
    | 'THEN' | 'ELSE' | 'END' | 'JOIN' | 'LEFT' | 'RIGHT' | 'FULL' | 'INNER' | 'OUTER' | 'CROSS'
    | 'NATURAL' | 'USING' | 'SELECT' | 'DISTINCT' | 'ALL' | 'ANY' | 'SOME' | 'CAST' | 'ASC' | 'DESC'
    | 'NULL' | 'TRUE' | 'FALSE' | 'TABLE' | 'EXISTS' | 'LATERAL' | 'ONLY' | 'VALUES' | 'DEFAULT'
    | 'CURRENT_DATE' | 'COLLATE' | 'ISNULL' | 'NOTNULL'
    ;
transactionStatement
    : ('BEGIN' | 'START' 'TRANSACTION') ('TRANSACTION' | 'WORK')?
    | ('COMMIT' | 'END' | 'ROLLBACK' | 'ABORT') ('TRANSACTION' | 'WORK')?
    ;
selectModifierExt : 'DISTINCT' 'ON' '(' expr (',' expr)* ')' ;
intoClause : 'INTO' ('TEMP' | 'TEMPORARY' | 'UNLOGGED')? 'TABLE'? tableName ;
queryTail
    : 'FOR' ('UPDATE' | 'SHARE' | 'NO' 'KEY' 'UPDATE' | 'KEY' 'SHARE') ('OF' tableName (',' tableName)*)?
      ('NOWAIT' | 'SKIP' 'LOCKED')?
    ;
onConflictClause
    : 'ON' 'CONFLICT' ('(' indexColumn (',' indexColumn)* ')' whereClause? | 'ON' 'CONSTRAINT' identifier)?
      'DO' ('NOTHING' | 'UPDATE' 'SET' assignment (',' assignment)* whereClause?)
    ;
tableSuffix : 'TABLESAMPLE' identifier '(' expr (',' expr)* ')' ('REPEATABLE' '(' expr ')')? ;
tablePrimaryExt : 'ONLY'? tableName '*' (tableAlias columnList?)? | 'ONLY' tableName (tableAlias columnList?)? ;
tableFunction : 'LATERAL'? functionName '(' (functionArg (',' functionArg)*)? ')' ('WITH' 'ORDINALITY')? ;

postfixExt
    : '::' dataType
    | '[' expr? (':' expr?)? ']'
    | 'AT' 'TIME' 'ZONE' expr
    | 'IS' 'NOT'? ('NORMALIZED' | 'DOCUMENT')
    | 'ISNULL' | 'NOTNULL'
    ;
binaryExt
    : '~' | '~*' | '!~' | '!~*' | '@>' | '<@' | '&&' | '->' | '->>' | '#>' | '#>>' | '?' | '?|'
    | '?&' | '@@' | '#' | '-|-' | '<->' | '&<' | '&>' | 'OPERATOR' '(' qualifiedName '.' operatorSymbol ')'
    | 'OVERLAPS' | 'IS' 'NOT'? 'OF' | '@?' | '@-@' | '##' | '<<|' | '|>>' | '&<|' | '|&>' | '?-|' | '?||'
    ;
operatorSymbol : ~')' ;
likeExt : 'ILIKE' | 'SIMILAR' 'TO' ;
primaryExt
    : 'ARRAY' ('[' (expr (',' expr)*)? ']' | '(' query ')')
    | '[' (expr (',' expr)*)? ']'
    | 'ROW' '(' (expr (',' expr)*)? ')'
    | '(' expr ')' ('.' (identifier | '*'))+
    | qualifiedName STRING
    | PARAMETER
    | 'DEFAULT'
    ;
specialFunction
    : 'SUBSTRING' '(' expr ('FROM' expr ('FOR' expr)? | 'FOR' expr ('FROM' expr)? | 'SIMILAR' expr 'ESCAPE' expr) ')'
    | 'TRIM' '(' ('BOTH' | 'LEADING' | 'TRAILING')? (expr? 'FROM')? expr (',' expr)* ')'
    | 'POSITION' '(' expr 'IN' expr ')'
    | 'OVERLAY' '(' expr 'PLACING' expr 'FROM' expr ('FOR' expr)? ')'
    | ('CURRENT_DATE' | 'CURRENT_TIME' | 'CURRENT_TIMESTAMP' | 'LOCALTIME' | 'LOCALTIMESTAMP'
      | 'CURRENT_USER' | 'SESSION_USER' | 'USER' | 'CURRENT_ROLE' | 'CURRENT_CATALOG' | 'CURRENT_SCHEMA')
      ('(' NUMBER ')')?
    | 'COLLATION' 'FOR' '(' expr ')'
    | ('XMLELEMENT' | 'XMLFOREST' | 'XMLPARSE' | 'XMLSERIALIZE') '(' ~')'* ')'
    ;
literalExt : ESCAPE_STRING | DOLLAR_STRING | BIT_STRING | UNICODE_STRING | NSTRING ;
literal
    : NUMBER | STRING+ | 'NULL' | 'TRUE' | 'FALSE' | literalExt
    | ('DATE' | 'TIME' | 'TIMESTAMP' | 'INTERVAL') STRING+ intervalUnit?
    | 'INTERVAL' '(' NUMBER ')' STRING
    ;
typeSuffix
    : '[' NUMBER? ']'
    | 'ARRAY' ('[' NUMBER? ']')?
    | ('WITH' | 'WITHOUT') 'TIME' 'ZONE'
    | 'VARYING'
    | unitName ('TO' unitName)?
    ;
dataType : 'SETOF'? typeName ('(' typeParameter (',' typeParameter)* ')')? typeSuffix* ;
columnConstraintExt : 'REFERENCES' tableName columnList? ;
tableOption
    : 'INHERITS' '(' tableName (',' tableName)* ')'
    | 'PARTITION' 'BY' identifier '(' indexColumn (',' indexColumn)* ')'
    | 'WITH' '(' ~')'* ')'
    | 'TABLESPACE' identifier
    | 'ON' 'COMMIT' ('DROP' | 'DELETE' 'ROWS' | 'PRESERVE' 'ROWS')
    ;
temporary : 'TEMP' | 'TEMPORARY' | ('GLOBAL' | 'LOCAL') ('TEMP' | 'TEMPORARY') | 'UNLOGGED' ;
castFunction : 'CAST' ;
functionArg : 'VARIADIC'? (identifier ('=>' | ':='))? expr ;
columnList : '(' identifier dataType? (',' identifier dataType?)* ')' ;
tableElement : tableConstraint | columnDefinition | 'LIKE' tableName (('INCLUDING' | 'EXCLUDING') identifier)* ;
functionKeywordExt : 'COALESCE' | 'NULLIF' | 'GREATEST' | 'LEAST' | 'XMLCONCAT' | 'EXISTS' ;

nonReserved
    : nonReservedCore | 'SESSION' | 'RESET' | 'SHOW' | 'EXTENSION' | 'VACUUM' | 'FULL' | 'UNLOGGED'
    | 'SHARE' | 'NOWAIT' | 'SKIP' | 'LOCKED' | 'CONFLICT' | 'NOTHING' | 'REPEATABLE' | 'ORDINALITY'
    | 'ZONE' | 'NORMALIZED' | 'DOCUMENT' | 'SUBSTRING' | 'TRIM' | 'POSITION' | 'OVERLAY'
    | 'INHERITS' | 'TABLESPACE' | 'PRESERVE' | 'SETOF' | 'VARYING' | 'ABORT' | 'COALESCE'
    | 'NULLIF' | 'GREATEST' | 'LEAST' | 'INSERT' | 'DELETE' | 'UPDATE' | 'KEY' | 'OF' | 'TABLESAMPLE'
    | 'VALUES' | 'XMLCONCAT' | 'XMLELEMENT' | 'XMLFOREST' | 'XMLPARSE' | 'XMLSERIALIZE' | 'ROW'
    | 'OPERATOR' | 'LOCALTIME' | 'LOCALTIMESTAMP' | 'COLLATION' | 'OVERLAPS' | 'PLACING'
    | 'CURRENT_SCHEMA' | 'FUNCTION' | 'PROCEDURE' | 'RETURNS' | 'LANGUAGE' | 'INOUT' | 'OUT'
    | 'VARIADIC' | 'IMMUTABLE' | 'STABLE' | 'VOLATILE' | 'STRICT' | 'LEAKPROOF' | 'CALLED' | 'INPUT'
    | 'SECURITY' | 'DEFINER' | 'INVOKER' | 'PARALLEL' | 'COST' | 'CALL' | 'ENUM' | 'TRIGGER'
    | 'GRANT' | 'REVOKE' | 'COPY' | 'LOCK' | 'REFRESH' | 'CONCURRENTLY' | 'INCLUDE' | 'RESTART'
    | 'CONTINUE' | 'MOVE' | 'CLOSE' | 'DECLARE' | 'ADD' | 'DOMAIN' | 'INCLUDING' | 'EXCLUDING'
    ;

ESCAPE_STRING : 'E' '\'' (~['\\] | '\'\'' | '\\' .)* '\'' ;
UNICODE_STRING : 'U&' '\'' (~'\'' | '\'\'')* '\'' ;
// N'…' (national character): one token, not the type name N before a string, which SLL
// prediction cannot tell from a column followed by a string alias (every such statement fell
// back to uncached full-LL parsing: Chinook's 15,000 INSERTs took 780 s)
NSTRING : 'N' '\'' STRING_CHAR* '\'' ;
// block comments nest in PostgreSQL
BLOCK_COMMENT : '/*' (BLOCK_COMMENT | .)*? '*/' -> channel(HIDDEN) ;
BIT_STRING : [BX] '\'' [0-9A-F]* '\'' ;
DOLLAR_STRING : '$' DOLLAR_TAG? '$' .*? '$' DOLLAR_TAG? '$' ;
fragment DOLLAR_TAG : [A-Z_] [A-Z_0-9]* ;
PARAMETER : '$' DIGIT+ ;
fragment IDENT_PART : [A-Z_0-9$] | [\u0080-\uFFFE] ;
