/* SQL Server (T-SQL) — what differs from Core.g4. Written for parrot. */
grammar Tsql;
options { caseInsensitive = true; }
import Core;

statementList : ';'* (statement ';'*)+ EOF ;
statementExt
    : 'DECLARE' declaration (',' declaration)*
    | 'SET' (VARIABLE ('=' | '+=' | '-=' | '*=' | '/=' | '%=' | '||=') expr | identifier (identifier | 'ON' | 'OFF' | NUMBER | VARIABLE | STRING) ('ON' | 'OFF')?)
    | 'IF' expr statement ';'? ('ELSE' statement)?
    | 'WHILE' expr statement
    | 'BEGIN' (statement | ';')* 'END'
    | 'BEGIN' ('TRY' | 'CATCH') (statement | ';')* 'END' ('TRY' | 'CATCH')
    | 'PRINT' expr
    | 'RETURN' expr?
    | ('BREAK' | 'CONTINUE' | 'GO')
    | ('EXEC' | 'EXECUTE') (VARIABLE '=')? (qualifiedName | '(' expr ')') (execArg (',' execArg)*)?
    | 'USE' identifier
    | ('CREATE' | 'ALTER') 'DATABASE' identifier ~';'*
    | 'CREATE' orAlter? ('PROCEDURE' | 'PROC') qualifiedName procParams? ('WITH' identifier (',' identifier)*)? 'AS' (statement | ';')+
    | 'CREATE' orAlter? 'FUNCTION' qualifiedName '(' (procParam (',' procParam)*)? ')' 'RETURNS' (dataType | VARIABLE? 'TABLE' ('(' tableElement (',' tableElement)* ')')?) ('WITH' identifier (',' identifier)*)? 'AS'? (statement | ';')+
    | 'DROP' ('PROCEDURE' | 'PROC' | 'FUNCTION') ifExists? qualifiedName
    | ('OPEN' | 'CLOSE' | 'DEALLOCATE') identifier
    | 'FETCH' ('NEXT' | 'PRIOR' | 'FIRST' | 'LAST')? 'FROM'? identifier ('INTO' VARIABLE (',' VARIABLE)*)?
    | ('GRANT' | 'REVOKE' | 'DENY' | 'RAISERROR' | 'THROW' | 'DBCC' | 'WAITFOR') ~';'*
    | 'WITH' 'XMLNAMESPACES' '(' ~')'* ')' query
    ;
orAlter : 'OR' 'ALTER' ;
procParams : '('? procParam (',' procParam)* ')'? ;
procParam : VARIABLE 'AS'? dataType ('=' expr)? ('OUTPUT' | 'OUT' | 'READONLY')? ;
execArg : (VARIABLE '=')? (expr | 'DEFAULT') ('OUTPUT' | 'OUT')? ;
declaration
    : VARIABLE 'AS'? (dataType ('=' expr)? | 'TABLE' '(' tableElement (',' tableElement)* ')' | 'CURSOR' ~';'*)
    | identifier 'CURSOR' ('LOCAL' | 'GLOBAL' | 'FORWARD_ONLY' | 'SCROLL' | 'STATIC' | 'KEYSET' | 'DYNAMIC' | 'FAST_FORWARD' | 'READ_ONLY')* 'FOR' query
    ;
transactionStatement
    : ('BEGIN' | 'COMMIT' | 'ROLLBACK' | 'SAVE') ('TRAN' | 'TRANSACTION') identifier?
    | ('COMMIT' | 'ROLLBACK') 'WORK'?
    ;
selectModifierExt : 'TOP' ('(' expr ')' | NUMBER | VARIABLE) 'PERCENT'? ('WITH' 'TIES')? ;
intoClause : 'INTO' tableName ;
limitClause : offsetClause fetchClause? ;
offsetClause : 'OFFSET' expr ('ROW' | 'ROWS') ;
queryTail : 'OPTION' '(' ~')'* ')' | 'FOR' ('XML' | 'JSON') ~(';' | ')')* ;
joinPart
    : joinType? 'JOIN' tablePrimary joinConstraint
    | 'CROSS' 'JOIN' tablePrimary
    | ('CROSS' | 'OUTER') 'APPLY' tablePrimary
    ;
joinType : 'INNER' | ('LEFT' | 'RIGHT' | 'FULL') 'OUTER'? | ('INNER' | ('LEFT' | 'RIGHT' | 'FULL') 'OUTER'?) ('LOOP' | 'HASH' | 'MERGE') ;
tableHint : 'WITH' '(' identifier (',' identifier)* ')' | pivotClause ;
tableSuffix : 'WITH' '(' identifier (',' identifier)* ')' | 'TABLESAMPLE' ~')'* ')' | 'FOR' 'SYSTEM_TIME' ~(';' | 'AS')+ ;
tablePrimaryExt : VARIABLE (tableAlias columnList?)? | ('PIVOT' | 'UNPIVOT') '(' ~')'* ')' ;
pivotClause : ('PIVOT' | 'UNPIVOT') '(' expr 'FOR' identifier 'IN' '(' expr (',' expr)* ')' ')' tableAlias? ;
insertStatement
    : withClause? 'INSERT' 'INTO'? tableName columnList? outputClause? (query | 'DEFAULT' 'VALUES' | execBody)
    ;
execBody : ('EXEC' | 'EXECUTE') ~';'+ ;
outputClause : 'OUTPUT' selectItem (',' selectItem)* ('INTO' tableName columnList?)? ;
updateStatement
    : 'UPDATE' selectModifierExt? tableReference 'SET' assignment (',' assignment)* outputClause? fromClause? whereClause? queryTail?
    ;
assignment : (qualifiedName | VARIABLE) ('=' | '+=' | '-=' | '*=' | '/=') expr ;
deleteStatement
    : 'DELETE' selectModifierExt? 'FROM'? tableReference outputClause? fromClause? whereClause? queryTail?
    ;
createTable
    : 'CREATE' 'TABLE' tableName '(' tableElement (',' tableElement)* ','? ')' tableOption*
    ;
tableOption : 'ON' identifier | 'WITH' '(' ~')'* ')' ;
columnConstraintExt : 'IDENTITY' ('(' signedNumber ',' signedNumber ')')? | 'CLUSTERED' | 'NONCLUSTERED' | 'ROWGUIDCOL' | 'SPARSE' ;
createIndex
    : 'CREATE' 'UNIQUE'? ('CLUSTERED' | 'NONCLUSTERED')? 'INDEX' identifier 'ON' tableName
      '(' indexColumn (',' indexColumn)* ')' ('INCLUDE' columnList)? whereClause? ('WITH' '(' ~')'* ')')?
    ;
dropStatement : 'DROP' ('TABLE' | 'VIEW' | 'INDEX' | 'SCHEMA' | 'DATABASE' | 'SEQUENCE') ifExists? tableName (',' tableName)* ('ON' tableName)? ;
alterTable : 'ALTER' 'TABLE' tableName alterAction (',' alterAction)* ;
alterAction
    : 'ADD' (columnDefinition | tableConstraint) (',' (columnDefinition | tableConstraint))*
    | 'DROP' ('COLUMN' | 'CONSTRAINT')? ifExists? identifier (',' identifier)*
    | 'ALTER' 'COLUMN' identifier dataType ('NOT'? 'NULL')?
    ;
truncateStatement : 'TRUNCATE' 'TABLE' tableName ;
createView : 'CREATE' orAlter? 'VIEW' tableName columnList? ('WITH' identifier (',' identifier)*)? 'AS' query ;

concatOperator : EXTENSION_POINT ;
comparisonExt : '!<' | '!>' | '*=' | '=*' ;
postfixExt : 'AT' 'TIME' 'ZONE' expr ;
primaryExt
    : VARIABLE
    | '$' IDENTIFIER
    | 'NEXT' 'VALUE' 'FOR' qualifiedName
    | qualifiedName '::' identifier '(' (expr (',' expr)*)? ')'
    ;
specialFunction
    : ('CONVERT' | 'TRY_CONVERT') '(' dataType ',' expr (',' expr)? ')'
    | ('PARSE' | 'TRY_PARSE') '(' expr 'AS' dataType ('USING' expr)? ')'
    | ('CURRENT_TIMESTAMP' | 'CURRENT_USER' | 'SESSION_USER' | 'SYSTEM_USER' | 'USER')
    | 'STRING_AGG' '(' expr ',' expr ')' ('WITHIN' 'GROUP' '(' orderByClause ')')?
    | 'TRIM' '(' ((STRING | expr) 'FROM')? expr ')'
    ;
castFunction : 'CAST' | 'TRY_CAST' ;
extractExpression : EXTENSION_POINT ;
literal
    : NUMBER | STRING | 'NULL' | NSTRING | MONEY
    ;
functionArguments
    : '*'
    | ('DISTINCT' | 'ALL')? functionArg (',' functionArg)*
    ;
functionArg : expr | dataType ;
typeParameter : signedNumber | 'MAX' | identifier ;
aliasName : identifier | STRING ;
selectItem
    : '*'
    | qualifiedName '.' '*'
    | identifier '=' expr
    | VARIABLE ('=' | '+=' | '-=' | '*=' | '/=') expr
    | expr alias?
    ;
quotedIdentifier : DQ_TEXT | BRACKET_TEXT ;
functionKeywordExt : 'LEFT' | 'RIGHT' | 'IIF' | 'NULLIF' | 'COALESCE' | 'UPDATE' ;
overClause : 'OVER' '(' windowSpec ')' ;

nonReserved
    : nonReservedCore | 'TRY' | 'CATCH' | 'PRINT' | 'BREAK' | 'CONTINUE' | 'GO' | 'EXEC' | 'USE'
    | 'PROCEDURE' | 'PROC' | 'FUNCTION' | 'RETURNS' | 'OPEN' | 'CLOSE' | 'DEALLOCATE' | 'PRIOR'
    | 'GRANT' | 'REVOKE' | 'DENY' | 'RAISERROR' | 'THROW' | 'DBCC' | 'WAITFOR' | 'XMLNAMESPACES' | 'OUTPUT'
    | 'OUT' | 'READONLY' | 'CURSOR' | 'FORWARD_ONLY' | 'SCROLL' | 'STATIC' | 'KEYSET' | 'DYNAMIC'
    | 'FAST_FORWARD' | 'READ_ONLY' | 'TRAN' | 'SAVE' | 'PERCENT' | 'OPTION' | 'XML' | 'JSON' | 'APPLY'
    | 'LOOP' | 'HASH' | 'SYSTEM_TIME' | 'PIVOT' | 'UNPIVOT' | 'IDENTITY' | 'CLUSTERED' | 'NONCLUSTERED'
    | 'ROWGUIDCOL' | 'SPARSE' | 'INCLUDE' | 'VALUE' | 'CONVERT' | 'TRY_CONVERT' | 'PARSE' | 'TRY_PARSE'
    | 'STRING_AGG' | 'TRIM' | 'MAX' | 'IIF' | 'ZONE' | 'OFF' | 'NULLIF' | 'COALESCE' | 'TRY_CAST'
    | 'EXECUTE' | 'SYSTEM_USER'
    ;

NSTRING : 'N' '\'' (~'\'' | '\'\'')* '\'' ;
MONEY : '$' [0-9]+ ('.' [0-9]*)? ;
BRACKET_TEXT : '[' (~']' | ']]')* ']' ;
VARIABLE : '@' '@'? [A-Z0-9_#$@]+ ;
fragment IDENT_START : [A-Z_#] | [\u0080-\uFFFE] ;
fragment IDENT_PART : [A-Z_0-9@$#] | [\u0080-\uFFFE] ;
