/* Oracle — what differs from Core.g4. Written for parrot. */
grammar Oracle;
options { caseInsensitive = true; }
import Core;

statementExt
    : 'ALTER' 'SESSION' 'SET' ~';'+
    | 'COMMENT' 'ON' ~';'+
    | ('GRANT' | 'REVOKE') privilege (',' privilege)*
      ('ON' ('TABLE' | 'VIEW' | 'SEQUENCE' | 'PROCEDURE' | 'FUNCTION' | 'PACKAGE' | 'TYPE' | 'DIRECTORY')? qualifiedName)?
      ('TO' | 'FROM') qualifiedName (',' qualifiedName)* ('WITH' ('GRANT' | 'ADMIN' | 'HIERARCHY') 'OPTION')?
    | 'CREATE' orReplace? 'SEQUENCE' qualifiedName ~';'*
    | 'CREATE' orReplace? editionable? ('PACKAGE' | 'TYPE') ~';'+
    | 'CREATE' orReplace? editionable? plsqlUnit
    | plsqlBlock
    | 'CALL' qualifiedName '(' functionArguments? ')'
    | 'ANALYZE' (('TABLE' | 'INDEX' | 'CLUSTER') qualifiedName
        (('PARTITION' | 'SUBPARTITION') '(' expr (',' expr)* ')')? analyzeAction? | analyzeAction)
    ;
analyzeAction
    : 'VALIDATE' 'REF' 'UPDATE' ('SET' 'DANGLING' 'TO' 'NULL')?
    | 'VALIDATE' 'STRUCTURE' ('CASCADE' ('FAST' | 'COMPLETE' ('ONLINE' | 'OFFLINE')?)?)? ('INTO' tableName)?
    | 'LIST' 'CHAINED' 'ROWS' ('INTO' tableName)?
    | ('DELETE' | 'COMPUTE') 'SYSTEM'? 'STATISTICS'
    ;
editionable : 'EDITIONABLE' | 'NONEDITIONABLE' ;
privilege
    : (identifier | 'SELECT' | 'INSERT' | 'UPDATE' | 'DELETE' | 'ALL' | 'CREATE' | 'ALTER' | 'DROP'
      | 'REFERENCES' | 'TABLE')+ columnList?
    ;

// ---------------------------------------------------------------- PL/SQL (one statement each:
// the splitter in parrot/check/parsers.py keeps a unit's inner ';' inside the statement)
plsqlUnit
    : 'FUNCTION' qualifiedName plsqlParameters? 'RETURN' plsqlType ('IS' | 'AS') plsqlImplementation
    | 'PROCEDURE' qualifiedName plsqlParameters? ('IS' | 'AS') plsqlImplementation
    | 'TRIGGER' qualifiedName ('BEFORE' | 'AFTER' | 'INSTEAD' 'OF') triggerEvent ('OR' triggerEvent)*
      'ON' tableName ('FOR' 'EACH' 'ROW')? ('WHEN' '(' expr ')')? plsqlBlock
    ;
plsqlImplementation : plsqlDeclaration* plsqlBody | ('LANGUAGE' | 'EXTERNAL') ~';'* ;
triggerEvent : 'INSERT' | 'DELETE' | 'UPDATE' ('OF' identifier (',' identifier)*)? ;
plsqlParameters : '(' plsqlParameter (',' plsqlParameter)* ')' ;
plsqlParameter : identifier ('IN' 'OUT'? | 'OUT')? 'NOCOPY'? plsqlType ((':=' | 'DEFAULT') expr)? ;
plsqlType : qualifiedName '%' ('TYPE' | 'ROWTYPE') | dataType ;
plsqlBlock : ('DECLARE' plsqlDeclaration*)? plsqlBody ;
plsqlBody : 'BEGIN' plsqlStatement+ ('EXCEPTION' plsqlHandler+)? 'END' identifier? ;
plsqlHandler : 'WHEN' qualifiedName ('OR' qualifiedName)* 'THEN' plsqlStatement+ ;
plsqlDeclaration
    : 'PRAGMA' identifier ('(' functionArguments ')')? ';'
    | 'CURSOR' identifier plsqlParameters? ('RETURN' plsqlType)? 'IS' query ';'
    | ('TYPE' | 'SUBTYPE') identifier ('IS' | 'AS') ~';'+ ';'
    | 'PROCEDURE' identifier plsqlParameters? (('IS' | 'AS') plsqlDeclaration* plsqlBody)? ';'
    | 'FUNCTION' identifier plsqlParameters? 'RETURN' plsqlType (('IS' | 'AS') plsqlDeclaration* plsqlBody)? ';'
    | identifier 'CONSTANT'? plsqlType ('NOT' 'NULL')? ((':=' | 'DEFAULT') expr)? ';'
    ;
plsqlStatement
    : plsqlBlock ';'
    | 'IF' expr 'THEN' plsqlStatement+ ('ELSIF' expr 'THEN' plsqlStatement+)* ('ELSE' plsqlStatement+)? 'END' 'IF' ';'
    | 'CASE' expr? ('WHEN' expr 'THEN' plsqlStatement+)+ ('ELSE' plsqlStatement+)? 'END' 'CASE' ';'
    | ('WHILE' expr | 'FOR' identifier 'IN' 'REVERSE'? plsqlLoopRange)? 'LOOP' plsqlStatement+ 'END' 'LOOP' identifier? ';'
    | ('EXIT' | 'CONTINUE') identifier? ('WHEN' expr)? ';'
    | 'RETURN' expr? ';'
    | 'NULL' ';'
    | 'RAISE' qualifiedName? ';'
    | 'OPEN' qualifiedName ('(' functionArguments? ')')? ('FOR' (query | expr) plsqlUsing?)? ';'
    | 'FETCH' qualifiedName plsqlInto ('LIMIT' expr)? ';'
    | 'CLOSE' qualifiedName ';'
    | 'EXECUTE' 'IMMEDIATE' expr plsqlInto? plsqlUsing? ';'
    | (query | insertStatement | updateStatement | deleteStatement | mergeStatement | transactionStatement
      | withClause (insertStatement | updateStatement | deleteStatement | mergeStatement)) ';'
    | plsqlTarget (':=' expr)? ';'
    ;
plsqlLoopRange : expr '..' expr | RANGE_LOW expr | '(' query ')' | qualifiedName ('(' functionArguments? ')')? ;
plsqlInto : ('BULK' 'COLLECT')? 'INTO' plsqlTarget (',' plsqlTarget)* ;
plsqlUsing : 'USING' ('IN' 'OUT'? | 'OUT')? expr (',' ('IN' 'OUT'? | 'OUT')? expr)* ;
plsqlTarget : (qualifiedName | BIND_VARIABLE ('.' identifier)*) ('(' functionArguments? ')' ('.' qualifiedName)?)? ;

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
intoClause : plsqlInto ;
tableAlias : identifier ;
tablePrimaryExt
    : 'TABLE' '(' expr ')' tableAlias?
    | ('JSON_TABLE' | 'XMLTABLE') '(' rowPattern ')' tableAlias?  // contents not checked
    ;
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
    | 'INSERT' ('ALL' | 'FIRST') (multiInsertInto+ | ('WHEN' expr 'THEN' multiInsertInto+)+ ('ELSE' multiInsertInto+)?) query
    ;
multiInsertInto : 'INTO' tableName columnList? ('VALUES' valuesRow)? ;
insertSource : query | 'VALUES' valuesRow (',' valuesRow)* ;  // multi-row: 23ai
valuesRow : '(' valuesItem (',' valuesItem)* ')' | expr ;
valuesItem : expr | 'DEFAULT' ;
commonTableExpression
    : identifier columnList? 'AS' '(' query ')'
      ('SEARCH' ('DEPTH' | 'BREADTH') 'FIRST' 'BY' orderItem (',' orderItem)* 'SET' identifier)?
      ('CYCLE' identifier (',' identifier)* 'SET' identifier ('TO' expr 'DEFAULT' expr)?)?
    ;
tableHint : pivotClause | matchRecognize ;
pivotClause
    : 'PIVOT' 'XML'? '(' expr alias? (',' expr alias?)* 'FOR' pivotColumns
      'IN' '(' (expr alias? (',' expr alias?)* | 'ANY' | query) ')' ')' tableAlias?
    | 'UNPIVOT' (('INCLUDE' | 'EXCLUDE') 'NULLS')? '(' (identifier | columnList) 'FOR' pivotColumns
      'IN' '(' unpivotItem (',' unpivotItem)* ')' ')' tableAlias?
    ;
pivotColumns : qualifiedName | columnList ;
unpivotItem : (qualifiedName | columnList) ('AS' expr)? ;
matchRecognize
    : 'MATCH_RECOGNIZE' '(' ('PARTITION' 'BY' expr (',' expr)*)? orderByClause?
      ('MEASURES' expr alias? (',' expr alias?)*)? (('ONE' 'ROW' | 'ALL' 'ROWS') 'PER' 'MATCH')?
      ('AFTER' 'MATCH' 'SKIP' ~'PATTERN'*)? 'PATTERN' '(' rowPattern ')' ('SUBSET' ~'DEFINE'*)?
      'DEFINE' identifier 'AS' expr (',' identifier 'AS' expr)* ')' tableAlias?
    ;
rowPattern : ('(' rowPattern ')' | ~('(' | ')'))* ;
jsonEntry : 'KEY'? expr ('VALUE' | 'IS' | ':') jsonValue | expr ;
jsonValue : expr ('FORMAT' 'JSON')? ;
jsonOption : ('NULL' | 'ABSENT') 'ON' 'NULL' | 'RETURNING' dataType | 'STRICT' | 'WITH' 'UNIQUE' 'KEYS' ;
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
    | BIND_VARIABLE ('.' identifier)*
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
    | ('JSON_OBJECT' | 'JSON_OBJECTAGG') '(' (jsonEntry (',' jsonEntry)*)? jsonOption* ')'
    | 'JSON_ARRAY' '(' (jsonValue (',' jsonValue)*)? jsonOption* ')'
    | 'JSON_ARRAYAGG' '(' jsonValue orderByClause? jsonOption* ')' overClause?
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
    | 'OFFSET' | 'FETCH' | 'SAMPLE' | 'CALL' | 'LANGUAGE' | 'EXTERNAL' | 'BEFORE' | 'AFTER' | 'INSTEAD'
    | 'EACH' | 'OUT' | 'NOCOPY' | 'ROWTYPE' | 'EXCEPTION' | 'PRAGMA' | 'SUBTYPE' | 'CONSTANT' | 'ELSIF'
    | 'LOOP' | 'REVERSE' | 'EXIT' | 'CONTINUE' | 'RAISE' | 'OPEN' | 'CLOSE' | 'EXECUTE' | 'SEARCH'
    | 'DEPTH' | 'BREADTH' | 'CYCLE' | 'XML' | 'INCLUDE' | 'ANY' | 'MEASURES' | 'ONE' | 'PER' | 'PATTERN'
    | 'LIST' | 'VALIDATE' | 'SUBPARTITION' | 'REF' | 'DANGLING' | 'STRUCTURE' | 'FAST' | 'COMPLETE'
    | 'DIRECTORY' | 'ADMIN' | 'HIERARCHY' | 'OPTION' | 'ONLINE' | 'OFFLINE' | 'CHAINED' | 'COMPUTE' | 'SYSTEM' | 'STATISTICS' | 'SUBSET' | 'DEFINE' | 'VALUE' | 'FORMAT' | 'JSON' | 'ABSENT' | 'STRICT' | 'KEYS'
    ;

NSTRING : 'N' '\'' (~'\'' | '\'\'')* '\'' ;
QSTRING : 'Q' '\'' ( '[' .*? ']' | '(' .*? ')' | '{' .*? '}' | '<' .*? '>' | '!' .*? '!' | '#' .*? '#' | '|' .*? '|' ) '\'' ;
BIND_VARIABLE : ':' [A-Z0-9_]+ ;
RANGE_LOW : [0-9]+ '..' ;  // FOR i IN 1..n (else NUMBER would take '1.')
fragment IDENT_PART : [A-Z_0-9$#] | [\u0080-\uFFFE] ;
