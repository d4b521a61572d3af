import { IsEmail, IsString, Length, MaxLength } from 'class-validator';

export class CreateAccountDto {
  @IsString()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be an email address' })
  email!: string;

  // At least 8 (NIST SP 800-63B); the upper bound keeps the slow hash from being an attack vector.
  @IsString()
  @Length(8, 256, { message: 'password must be 8 to 256 characters long' })
  password!: string;
}
