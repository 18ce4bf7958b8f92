/* Oracle — what differs from Core.g4. Written for parrot. */
grammar Oracle;
options { caseInsensitive = true; }
import Core;

statementExt
    : 'ALTER' 'SESSION' 'SET' ~';'+
    | ('GRANT' | 'REVOKE' | 'COMMENT' 'ON') ~';'+
    | 'CREATE' orReplace? 'SEQUENCE' qualifiedName ~';'*
    | 'CREATE' orReplace? ('EDITIONABLE' | 'NONEDITIONABLE')? ('PROCEDURE' | 'FUNCTION' | 'PACKAGE' | 'TRIGGER' | 'TYPE') ~';'+
    | plsqlBlock
    ;
plsqlBlock : ('DECLARE' ~('BEGIN')*)? 'BEGIN' ~'END'* 'END' identifier? ;
transactionStatement
    : 'COMMIT' 'WORK'?
    | 'ROLLBACK' 'WORK'? ('TO' 'SAVEPOINT'? identifier)?
    | 'SAVEPOINT' identifier
    | 'SET' 'TRANSACTION' ~';'*
    ;
limitClause : offsetClause fetchClause? | fetchClause ;
fetchClause : 'FETCH' ('FIRST' | 'NEXT') (expr 'PERCENT'?)? ('ROW' | 'ROWS') ('ONLY' | 'WITH' 'TIES') ;
setOperatorExt : 'MINUS' ;
afterWhere
    : ('START' 'WITH' expr)? 'CONNECT' 'BY' 'NOCYCLE'? expr ('START' 'WITH' expr)?
    ;
queryTail : 'FOR' 'UPDATE' ('OF' qualifiedName (',' qualifiedName)*)? ('NOWAIT' | 'WAIT' NUMBER | 'SKIP' 'LOCKED')? ;
intoClause : ('BULK' 'COLLECT')? 'INTO' identifier (',' identifier)* ;
tableAlias : identifier ;
tablePrimaryExt : 'TABLE' '(' expr ')' tableAlias? ;
tableSuffix : 'PARTITION' '(' identifier ')' | '@' identifier | 'SAMPLE' '(' NUMBER ')' ;
joinPart
    : joinType? 'JOIN' tablePrimary joinConstraint
    | 'CROSS' 'JOIN' tablePrimary
    | 'NATURAL' joinType? 'JOIN' tablePrimary
    | ('CROSS' | 'OUTER') 'APPLY' tablePrimary
    ;
orderByClause : 'ORDER' 'SIBLINGS'? 'BY' orderItem (',' orderItem)* ;
selectModifier : 'ALL' | 'DISTINCT' | 'UNIQUE' ;
insertStatement
    : 'INSERT' 'INTO' tableName tableAlias? columnList? insertSource returningClause?
    | 'INSERT' ('ALL' | 'FIRST') ('INTO' tableName columnList? ('VALUES' valuesRow)?)+ query
    ;
insertSource : query | 'VALUES' valuesRow ;
valuesClause : 'VALUES' valuesRow ;
returningClause : ('RETURNING' | 'RETURN') expr (',' expr)* 'INTO' identifier (',' identifier)* ;
createTable
    : 'CREATE' ('GLOBAL' 'TEMPORARY' | 'PRIVATE' 'TEMPORARY')? 'TABLE' tableName
      ( '(' tableElement (',' tableElement)* ')' tableOption* ('AS' query)?
      | tableOption* 'AS' query
      )
    ;
tableOption : 'ON' 'COMMIT' ('DELETE' | 'PRESERVE') 'ROWS' | 'TABLESPACE' identifier | 'ORGANIZATION' identifier | ('NOLOGGING' | 'LOGGING' | 'COMPRESS' | 'NOCOMPRESS') ;
dropStatement
    : 'DROP' ('TABLE' | 'VIEW' | 'MATERIALIZED' 'VIEW' | 'INDEX' | 'SEQUENCE' | 'SYNONYM' | 'PROCEDURE' | 'FUNCTION' | 'PACKAGE' | 'TRIGGER' | 'TYPE')
      tableName ('CASCADE' 'CONSTRAINTS')? 'PURGE'?
    ;
alterAction
    : 'ADD' ('(' columnDefinition (',' columnDefinition)* ')' | columnDefinition | tableConstraint)
    | 'MODIFY' ('(' columnDefinition (',' columnDefinition)* ')' | columnDefinition)
    | 'DROP' ('COLUMN' identifier | '(' identifier (',' identifier)* ')' | 'CONSTRAINT' identifier | 'PRIMARY' 'KEY')
    | 'RENAME' ('COLUMN' identifier | 'CONSTRAINT' identifier) 'TO' identifier
    | 'RENAME' 'TO' tableName
    ;

postfixExt : '(' '+' ')' ;
primaryExt
    : 'PRIOR' expr
    | 'CONNECT_BY_ROOT' expr
    | BIND_VARIABLE
    | 'CURSOR' '(' query ')'
    | 'MULTISET' '(' query ')'
    ;
specialFunction
    : 'TRIM' '(' ('BOTH' | 'LEADING' | 'TRAILING')? (expr? 'FROM')? expr ')'
    | ('SYSDATE' | 'SYSTIMESTAMP' | 'CURRENT_DATE' | 'CURRENT_TIMESTAMP' | 'LOCALTIMESTAMP' | 'USER' | 'UID')
    | 'LISTAGG' '(' ('DISTINCT' | 'ALL')? expr (',' expr)? ('ON' 'OVERFLOW' ~')'*)? ')' ('WITHIN' 'GROUP' '(' orderByClause ')')? overClause?
    | ('KEEP') '(' ~')'* ')'
    | 'TREAT' '(' expr 'AS' dataType ')'
    | 'XMLAGG' '(' expr orderByClause? ')'
    ;
functionCall
    : functionName '(' functionArguments? ')' withinGroup? ('KEEP' '(' 'DENSE_RANK' ('FIRST' | 'LAST') orderByClause ')')? nullTreatment? overClause?
    ;
castFunction : 'CAST' ;
literal
    : NUMBER | STRING+ | 'NULL' | 'TRUE' | 'FALSE' | NSTRING | QSTRING
    | ('DATE' | 'TIMESTAMP') STRING
    | 'INTERVAL' STRING intervalUnit ('(' NUMBER ')')? ('TO' unitName ('(' NUMBER ')')?)?
    ;
extractExpression : 'EXTRACT' '(' extractField 'FROM' expr ')' ;
typeSuffix : ('WITH' 'LOCAL'? | 'WITHOUT') 'TIME' 'ZONE' | 'BYTE' | 'CHAR' ;
dataType
    : typeName ('(' typeParameter (',' typeParameter)* typeSuffix? ')')? typeSuffix*
    | 'INTERVAL' unitName ('(' NUMBER ')')? 'TO' unitName ('(' NUMBER ')')?
    ;
typeParameter : signedNumber | '*' ;
concatOperator : '||' ;
aliasName : identifier ;
functionKeywordExt : 'REPLACE' ;

nonReserved
    : nonReservedCore | 'SESSION' | 'GRANT' | 'REVOKE' | 'EDITIONABLE' | 'NONEDITIONABLE' | 'PROCEDURE'
    | 'FUNCTION' | 'PACKAGE' | 'TRIGGER' | 'SAVEPOINT' | 'PERCENT' | 'NOCYCLE' | 'NOWAIT' | 'WAIT'
    | 'SKIP' | 'LOCKED' | 'BULK' | 'COLLECT' | 'SIBLINGS' | 'RETURN' | 'RETURNING' | 'PRIVATE' | 'PRESERVE'
    | 'TABLESPACE' | 'ORGANIZATION' | 'NOLOGGING' | 'LOGGING' | 'COMPRESS' | 'NOCOMPRESS' | 'SYNONYM'
    | 'CONSTRAINTS' | 'PURGE' | 'MODIFY' | 'CONNECT_BY_ROOT' | 'CURSOR' | 'MULTISET' | 'TRIM' | 'SYSDATE'
    | 'SYSTIMESTAMP' | 'LOCALTIMESTAMP' | 'UID' | 'LISTAGG' | 'OVERFLOW' | 'KEEP' | 'TREAT' | 'XMLAGG'
    | 'DENSE_RANK' | 'BYTE' | 'CHAR' | 'ZONE' | 'LIMIT' | 'APPLY' | 'OUTER' | 'USER' | 'TYPE' | 'DECLARE'
    | 'OFFSET' | 'FETCH' | 'SAMPLE'
    ;

NSTRING : 'N' '\'' (~'\'' | '\'\'')* '\'' ;
QSTRING : 'Q' '\'' ( '[' .*? ']' | '(' .*? ')' | '{' .*? '}' | '<' .*? '>' | '!' .*? '!' | '#' .*? '#' | '|' .*? '|' ) '\'' ;
BIND_VARIABLE : ':' [A-Z0-9_]+ ;
fragment IDENT_PART : [A-Z_0-9$#] | [\u0080-\uFFFE] ;
