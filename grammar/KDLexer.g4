// Lexer of the KD kernel language (spec section 2).
// Tokens are formed by longest match; on a tie the rule listed first wins.
// The lexer never fails: malformed input becomes an ERROR_* token that the
// front end turns into a `syntax` diagnostic, so ANTLR never prints anything.
lexer grammar KDLexer;

channels { ERRORS }

// Reserved words.
INCLUDE : 'include';
CONST   : 'const';
KERNEL  : 'kernel';
IN      : 'in';
SCRATCH : 'scratch';
SEM     : 'sem';
LET     : 'let';
VAR     : 'var';
FOR     : 'for';
WHILE   : 'while';
RETURN  : 'return';
IF      : 'if';
ELSE    : 'else';
ASM     : 'asm';
ASSERT  : 'assert';
TRUE    : 'true';
FALSE   : 'false';
INF     : 'inf';
NAN     : 'nan';

// Dtype names are reserved too (spec section 3).
BOOL : 'bool';
I8   : 'i8';
I16  : 'i16';
I32  : 'i32';
I64  : 'i64';
U8   : 'u8';
U16  : 'u16';
U32  : 'u32';
U64  : 'u64';
F16  : 'f16';
BF16 : 'bf16';
F32  : 'f32';
F64  : 'f64';

// Punctuation. `...` and `..` precede FLOAT so that `0..n` is `0`, `..`, `n`.
ELLIPSIS : '...';
DOTDOT   : '..';
ARROW    : '->';
PLUS_ASSIGN  : '+=';
MINUS_ASSIGN : '-=';
STAR_ASSIGN  : '*=';
SHL  : '<<';
SHR  : '>>';
LE   : '<=';
GE   : '>=';
EQ   : '==';
NE   : '!=';
AND  : '&&';
OR   : '||';
LT   : '<';
GT   : '>';
ASSIGN : '=';
PLUS   : '+';
MINUS  : '-';
STAR   : '*';
SLASH  : '/';
PERCENT: '%';
AMP    : '&';
CARET  : '^';
PIPE   : '|';
BANG   : '!';
TILDE  : '~';
QUESTION : '?';
COLON  : ':';
SEMI   : ';';
COMMA  : ',';
AT     : '@';
LPAREN : '(';
RPAREN : ')';
LBRACK : '[';
RBRACK : ']';
LBRACE : '{';
RBRACE : '}';

// A `.` needs digits on both sides or begins the literal: `1.0`, `.5`, `1e-3`.
FLOAT
    : DIGITS '.' DIGITS EXPONENT?
    | '.' DIGITS EXPONENT?
    | DIGITS EXPONENT
    ;

// `_` separates digits, never at either end.
INT
    : DIGITS
    | '0' [xX] HEX_DIGIT ('_'? HEX_DIGIT)*
    ;

IDENT : [A-Za-z_] [A-Za-z0-9_]*;

// Escapes are validated by the AST builder so that a bad one gets a precise
// diagnostic instead of ending the string.
STRING : '"' (~["\\\r\n] | '\\' ~[\r\n])* '"';

LINE_COMMENT  : '//' ~[\r\n]* -> skip;
BLOCK_COMMENT : '/*' .*? '*/' -> skip;
WS            : [ \t\r\n\f]+ -> skip;

// Error tokens, reported by the front end and hidden from the parser.
UNTERMINATED_STRING  : '"' (~["\\\r\n] | '\\' ~[\r\n])* '\\'? -> channel(ERRORS);
UNTERMINATED_COMMENT : '/*' ( ~'*' | '*'+ ~[*/] )* '*'* -> channel(ERRORS);
ERROR_CHAR           : . -> channel(ERRORS);

fragment DIGITS    : [0-9] ('_'? [0-9])*;
fragment HEX_DIGIT : [0-9a-fA-F];
fragment EXPONENT  : [eE] [+-]? [0-9]+;
